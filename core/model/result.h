// Result<T>: a value or a message a user can act on. Errors are values at the core boundary.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace tilescope {

struct Error {
    std::string message;
};

template <typename T>
class [[nodiscard]] Result {
public:
    Result(T value) : m_state(std::move(value)) {}
    Result(Error error) : m_state(std::move(error)) {}

    bool ok() const { return std::holds_alternative<T>(m_state); }
    explicit operator bool() const { return ok(); }
    T& value() & { return std::get<T>(m_state); }
    const T& value() const& { return std::get<T>(m_state); }
    T&& value() && { return std::get<T>(std::move(m_state)); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    const std::string& error() const { return std::get<Error>(m_state).message; }

private:
    std::variant<T, Error> m_state;
};

template <>
class [[nodiscard]] Result<void> {
public:
    Result() = default;
    Result(Error error) : m_error(std::move(error.message)) {}
    bool ok() const { return !m_error; }
    explicit operator bool() const { return ok(); }
    const std::string& error() const { return *m_error; }

private:
    std::optional<std::string> m_error;
};

inline Error makeError(std::string message) { return Error{std::move(message)}; }

}  // namespace tilescope
