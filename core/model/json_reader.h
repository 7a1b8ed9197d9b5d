// JsonReader: typed, range-checked reads of one JSON object's fields for the file readers.
// The first error wins and names the JSON pointer of the field and what was expected; unknown
// keys are ignored (files of the same major version may carry more).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/model/launch_plan.h"

namespace tilescope {

class JsonReader {
public:
    // `pointer` is the JSON pointer of `object` in its document ("" for the root).
    JsonReader(const nlohmann::ordered_json& object, std::string pointer, std::optional<std::string>* error);

    bool failed() const { return m_error->has_value(); }
    const std::string& pointer() const { return m_pointer; }
    std::string pointerOf(std::string_view key) const;

    std::int64_t integer(const char* key, std::int64_t minimum, std::int64_t maximum);
    std::optional<std::int64_t> optionalInteger(const char* key, std::int64_t minimum, std::int64_t maximum);
    // Accepts a number, or the strings "nan", "inf", "-inf" the writers use for non-finite values.
    double number(const char* key, double minimum, double maximum);
    std::optional<double> optionalNumber(const char* key, double minimum, double maximum);
    std::string text(const char* key);
    std::optional<std::string> optionalText(const char* key);  // absent or null -> nullopt
    bool boolean(const char* key);
    std::optional<bool> optionalBoolean(const char* key);  // absent or null -> nullopt
    Dim3 dim3(const char* key, std::int64_t maximum);
    // The member, or nullptr (with an error unless optional and absent/null).
    const nlohmann::ordered_json* object(const char* key, bool optional = false);
    const nlohmann::ordered_json* array(const char* key, bool optional = false, std::size_t maxSize = SIZE_MAX);

    // Records an error about this object (or one of its fields) unless one is already recorded.
    void fail(const std::string& pointer, const std::string& what);

private:
    const nlohmann::ordered_json* member(const char* key, bool required);

    const nlohmann::ordered_json& m_object;
    std::string m_pointer;
    std::optional<std::string>* m_error;
};

// A JSON pointer token for an object key ("~" and "/" escaped per RFC 6901).
std::string jsonPointerToken(std::string_view key);
// A short rendition of a value for error messages (long values are cut).
std::string describeJsonValue(const nlohmann::ordered_json& value);

// Numbers that JSON cannot hold are written as these strings and read back by JsonReader::number.
nlohmann::ordered_json numberToJson(double value);

}  // namespace tilescope
