#pragma once
// Reading the --json output of the benchmark programs in smoke tests: one
// flat JSON object of string, number and literal (null, true, false) values
// per line.

#include <cctype>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <doctest/doctest.h>

namespace lapis::testing {

// Keys to values; strings unquoted, numbers as written.
using JsonObject = std::map<std::string, std::string>;

// The length of the JSON literal (null, true, false) at line[i], or 0.
inline std::size_t literal_length(const std::string& line, std::size_t i) {
  for (const char* word : {"null", "true", "false"}) {
    if (line.compare(i, std::char_traits<char>::length(word), word) == 0) {
      return std::char_traits<char>::length(word);
    }
  }
  return 0;
}

// One line holding exactly one flat object; nullopt for anything else
// (nesting, escapes, a duplicate key, trailing text).
inline std::optional<JsonObject> parse_flat_object(const std::string& line) {
  std::size_t i = 0;
  const auto skip_space = [&] {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
  };
  const auto parse_string = [&](std::string& out) {
    if (i >= line.size() || line[i] != '"') return false;
    const std::size_t end = line.find('"', i + 1);
    if (end == std::string::npos) return false;
    out = line.substr(i + 1, end - i - 1);
    i = end + 1;
    return true;
  };
  const auto parse_number = [&](std::string& out) {
    const auto in_number = [](char c) {
      return std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+' ||
             c == 'e' || c == 'E';
    };
    const std::size_t start = i;
    while (i < line.size() && in_number(line[i])) ++i;
    out = line.substr(start, i - start);
    char* end = nullptr;
    std::strtod(out.c_str(), &end);
    return !out.empty() && end == out.c_str() + out.size();
  };
  JsonObject object;
  skip_space();
  if (i >= line.size() || line[i++] != '{') return std::nullopt;
  while (true) {
    std::string key, value;
    skip_space();
    if (!parse_string(key)) return std::nullopt;
    skip_space();
    if (i >= line.size() || line[i++] != ':') return std::nullopt;
    skip_space();
    bool ok = false;
    if (i < line.size() && line[i] == '"') {
      ok = parse_string(value);
    } else if (const std::size_t literal = literal_length(line, i); literal != 0) {
      value = line.substr(i, literal);  // null, true, false: kept as written
      i += literal;
      ok = true;
    } else {
      ok = parse_number(value);
    }
    if (!ok || !object.emplace(key, value).second) return std::nullopt;
    skip_space();
    if (i < line.size() && line[i] == ',') {
      ++i;
      continue;
    }
    if (i >= line.size() || line[i++] != '}') return std::nullopt;
    skip_space();
    return i == line.size() ? std::optional(object) : std::nullopt;
  }
}

// Lines that do not start with '{': a test reading stdout alone rejects
// them (--json output must be nothing but rows); one reading output merged
// with stderr (launcher or library messages) skips them.
enum class OtherLines { kRejected, kSkipped };

// The rows of `output`, in order; every row line must parse (a failed
// CHECK names the line).
inline std::vector<JsonObject> json_rows(const std::string& output, OtherLines other) {
  std::vector<JsonObject> rows;
  std::size_t start = 0;
  while (start < output.size()) {
    std::size_t end = output.find('\n', start);
    if (end == std::string::npos) end = output.size();
    const std::string line = output.substr(start, end - start);
    start = end + 1;
    if (line.empty() || (line[0] != '{' && other == OtherLines::kSkipped)) continue;
    const auto object = parse_flat_object(line);
    CHECK_MESSAGE(object.has_value(), "not a flat JSON object: " << line);
    if (object) rows.push_back(*object);
  }
  return rows;
}

// The value of `key`, empty when the row has none.
inline std::string field(const JsonObject& row, const std::string& key) {
  const auto it = row.find(key);
  return it == row.end() ? std::string() : it->second;
}

// The number under `key`; the key must be there.
inline double number(const JsonObject& row, const std::string& key) {
  const auto it = row.find(key);
  REQUIRE_MESSAGE(it != row.end(), "missing key " << key);
  return std::strtod(it->second.c_str(), nullptr);
}

inline void check_positive(const JsonObject& row, const std::string& key) {
  CHECK_MESSAGE(number(row, key) > 0, key << " = " << field(row, key));
}

}  // namespace lapis::testing
