#pragma once
/// @file errors.hpp
/// @brief The one exception type the core throws for bad arguments, and the builder of its text.

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace attnlab {

/// @brief Thrown when an argument has the wrong shape, rank, size or value.
///
/// The message always starts with the public function's name, then names the
/// argument and what was expected, e.g.
/// "attention: K has d_k = 3 but Q has d_k = 4".
class argument_error : public std::invalid_argument {
public:
    explicit argument_error(const std::string& message) : std::invalid_argument(message) {}
};

/// @brief The multi-index of flat row-major offset `flat` in `shape`, for error_text: "[1, 2]",
/// as index_string writes it (nothing for a scalar).
struct index_at {
    const std::vector<std::size_t>& shape;
    std::size_t flat;
};

/// @brief A string the caller gave, as a message echoes it: its first 40 characters, and its
/// length when there is more (`name = "zzzz...... (10000000 characters)"`), the rule of
/// web/src/api/tensor.js quote() for the engine's messages.
struct given {
    const std::string& text;
};

/// @brief An argument_error's text, appended piece by piece into one string, then thrown:
/// `fail(error_text(fn) << ": K has d_k = " << k_d_k << " but Q has d_k = " << d_k)`.
///
/// Every member is out of line, so a throw site is a few calls. (A chain of std::string
/// operator+ makes a temporary per piece, each with its own clean-up code, at every site:
/// most of the engine's cold code in the wasm build.) Integers print as std::to_string does,
/// floating-point numbers as number_string does ("0.5", "1e-60", "NaN"), shapes as
/// shape_string does ("[2, 3]").
class error_text {
public:
    explicit error_text(const std::string& start);
    error_text& operator<<(const char* piece);
    error_text& operator<<(const std::string& piece);
    error_text& operator<<(char c);
    error_text& operator<<(int x) { return whole(x); }
    error_text& operator<<(long x) { return whole(x); }
    error_text& operator<<(long long x) { return whole(x); }
    error_text& operator<<(unsigned x) { return count(x); }
    error_text& operator<<(unsigned long x) { return count(x); }
    error_text& operator<<(unsigned long long x) { return count(x); }
    error_text& operator<<(double x);
    error_text& operator<<(const std::vector<std::size_t>& shape);
    error_text& operator<<(const index_at& at);
    error_text& operator<<(const given& g);
    const std::string& str() const { return text_; }

private:
    error_text& whole(long long x);
    error_text& count(unsigned long long x);
    std::string text_;
};

/// @brief Throws argument_error with the text.
[[noreturn]] void fail(const error_text& text);

}  // namespace attnlab
