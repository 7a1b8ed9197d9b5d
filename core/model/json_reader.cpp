#include "core/model/json_reader.h"

#include <cmath>
#include <limits>

namespace tilescope {

using json = nlohmann::ordered_json;

namespace {

constexpr std::size_t kMaxDescribedChars = 60;

std::string_view typeName(const json& value) {
    switch (value.type()) {
        case json::value_t::null: return "null";
        case json::value_t::object: return "an object";
        case json::value_t::array: return "an array";
        case json::value_t::string: return "a string";
        case json::value_t::boolean: return "a boolean";
        case json::value_t::number_integer:
        case json::value_t::number_unsigned: return "an integer";
        case json::value_t::number_float: return "a number";
        case json::value_t::binary: return "binary data";
        case json::value_t::discarded: return "nothing";
    }
    return "a value";
}

}  // namespace

std::string jsonPointerToken(std::string_view key) {
    std::string out;
    for (char c : key) {
        if (c == '~') out += "~0";
        else if (c == '/') out += "~1";
        else out += c;
    }
    return out;
}

std::string describeJsonValue(const json& value) {
    std::string text;
    if (value.is_object() || value.is_array()) {
        text = std::string(typeName(value)) + " of " + std::to_string(value.size()) + " entries";
        return text;
    }
    text = value.dump();
    if (text.size() > kMaxDescribedChars) text = text.substr(0, kMaxDescribedChars) + "...";
    return std::string(typeName(value)) + " " + text;
}

nlohmann::ordered_json numberToJson(double value) {
    if (std::isnan(value)) return "nan";
    if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
    return value;
}

JsonReader::JsonReader(const json& object, std::string pointer, std::optional<std::string>* error)
    : m_object(object), m_pointer(std::move(pointer)), m_error(error) {
    if (!m_object.is_object()) fail(m_pointer, "expected an object, got " + describeJsonValue(m_object));
}

std::string JsonReader::pointerOf(std::string_view key) const { return m_pointer + "/" + jsonPointerToken(key); }

void JsonReader::fail(const std::string& pointer, const std::string& what) {
    if (!m_error->has_value()) *m_error = "at " + (pointer.empty() ? std::string("/") : pointer) + ": " + what;
}

const json* JsonReader::member(const char* key, bool required) {
    if (failed() || !m_object.is_object()) return nullptr;
    auto it = m_object.find(key);
    if (it == m_object.end()) {
        if (required) fail(pointerOf(key), "missing (expected here)");
        return nullptr;
    }
    return &*it;
}

std::int64_t JsonReader::integer(const char* key, std::int64_t minimum, std::int64_t maximum) {
    const json* value = member(key, true);
    if (!value) return 0;
    if (!value->is_number_integer()) {
        fail(pointerOf(key), "expected an integer, got " + describeJsonValue(*value));
        return 0;
    }
    // Unsigned values above INT64_MAX are out of every range we accept.
    if (value->is_number_unsigned() && value->get<std::uint64_t>() > static_cast<std::uint64_t>(maximum)) {
        fail(pointerOf(key),
             "expected an integer in [" + std::to_string(minimum) + ", " + std::to_string(maximum) + "], got " + value->dump());
        return 0;
    }
    const auto v = value->get<std::int64_t>();
    if (v < minimum || v > maximum) {
        fail(pointerOf(key),
             "expected an integer in [" + std::to_string(minimum) + ", " + std::to_string(maximum) + "], got " + std::to_string(v));
        return 0;
    }
    return v;
}

std::optional<std::int64_t> JsonReader::optionalInteger(const char* key, std::int64_t minimum, std::int64_t maximum) {
    const json* value = member(key, false);
    if (!value || value->is_null()) return std::nullopt;
    const auto v = integer(key, minimum, maximum);
    if (failed()) return std::nullopt;
    return v;
}

double JsonReader::number(const char* key, double minimum, double maximum) {
    const json* value = member(key, true);
    if (!value) return 0.0;
    double v = 0.0;
    if (value->is_number()) {
        v = value->get<double>();
    } else if (value->is_string() && (*value == "nan" || *value == "inf" || *value == "-inf")) {
        const auto& s = value->get_ref<const std::string&>();
        v = s == "nan" ? std::numeric_limits<double>::quiet_NaN()
                       : (s == "inf" ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity());
        return v;  // non-finite values are written on purpose (e.g. an error of a broken output)
    } else {
        fail(pointerOf(key), "expected a number, got " + describeJsonValue(*value));
        return 0.0;
    }
    if (!(v >= minimum && v <= maximum)) {
        fail(pointerOf(key), "expected a number in [" + json(minimum).dump() + ", " + json(maximum).dump() + "], got " + value->dump());
        return 0.0;
    }
    return v;
}

std::optional<double> JsonReader::optionalNumber(const char* key, double minimum, double maximum) {
    const json* value = member(key, false);
    if (!value || value->is_null()) return std::nullopt;
    const double v = number(key, minimum, maximum);
    if (failed()) return std::nullopt;
    return v;
}

std::string JsonReader::text(const char* key) {
    const json* value = member(key, true);
    if (!value) return {};
    if (!value->is_string()) {
        fail(pointerOf(key), "expected a string, got " + describeJsonValue(*value));
        return {};
    }
    return value->get<std::string>();
}

std::optional<std::string> JsonReader::optionalText(const char* key) {
    const json* value = member(key, false);
    if (!value || value->is_null()) return std::nullopt;
    std::string v = text(key);
    if (failed()) return std::nullopt;
    return v;
}

bool JsonReader::boolean(const char* key) {
    const json* value = member(key, true);
    if (!value) return false;
    if (!value->is_boolean()) {
        fail(pointerOf(key), "expected true or false, got " + describeJsonValue(*value));
        return false;
    }
    return value->get<bool>();
}

std::optional<bool> JsonReader::optionalBoolean(const char* key) {
    const json* value = member(key, false);
    if (!value || value->is_null()) return std::nullopt;
    if (!value->is_boolean()) {
        fail(pointerOf(key), "expected true or false, got " + describeJsonValue(*value));
        return std::nullopt;
    }
    return value->get<bool>();
}

Dim3 JsonReader::dim3(const char* key, std::int64_t maximum) {
    Dim3 out;
    const json* value = member(key, true);
    if (!value) return out;
    if (!value->is_array() || value->size() != 3) {
        fail(pointerOf(key), "expected an array of 3 integers, got " + describeJsonValue(*value));
        return out;
    }
    std::int64_t* fields[] = {&out.x, &out.y, &out.z};
    for (std::size_t i = 0; i < 3; ++i) {
        const json& v = (*value)[i];
        if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(maximum)) ||
            v.get<std::int64_t>() < 0 || v.get<std::int64_t>() > maximum) {
            fail(pointerOf(key) + "/" + std::to_string(i),
                 "expected an integer in [0, " + std::to_string(maximum) + "], got " + describeJsonValue(v));
            return out;
        }
        *fields[i] = v.get<std::int64_t>();
    }
    return out;
}

const json* JsonReader::object(const char* key, bool optional) {
    const json* value = member(key, !optional);
    if (!value || (optional && value->is_null())) return nullptr;
    if (!value->is_object()) {
        fail(pointerOf(key), "expected an object, got " + describeJsonValue(*value));
        return nullptr;
    }
    return value;
}

const json* JsonReader::array(const char* key, bool optional, std::size_t maxSize) {
    const json* value = member(key, !optional);
    if (!value || (optional && value->is_null())) return nullptr;
    if (!value->is_array()) {
        fail(pointerOf(key), "expected an array, got " + describeJsonValue(*value));
        return nullptr;
    }
    if (value->size() > maxSize) {
        fail(pointerOf(key), "expected at most " + std::to_string(maxSize) + " entries, got " + std::to_string(value->size()));
        return nullptr;
    }
    return value;
}

}  // namespace tilescope
