#pragma once
/// @file errors.hpp
/// @brief The one exception type the core throws for bad arguments.

#include <stdexcept>
#include <string>

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

}  // namespace attnlab
