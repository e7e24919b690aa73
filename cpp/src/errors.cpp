#include "attnlab/errors.hpp"

#include "attnlab/tensor.hpp"

namespace attnlab {

error_text::error_text(const std::string& start) : text_(start) {}

error_text& error_text::operator<<(const char* piece) {
    text_ += piece;
    return *this;
}

error_text& error_text::operator<<(const std::string& piece) {
    text_ += piece;
    return *this;
}

error_text& error_text::operator<<(const given& g) {
    constexpr std::size_t echo = 40;
    if (g.text.size() <= echo) return *this << g.text;
    text_.append(g.text, 0, echo);
    return *this << "... (" << g.text.size() << " characters)";
}

error_text& error_text::operator<<(char c) {
    text_ += c;
    return *this;
}

error_text& error_text::operator<<(double x) { return *this << number_string(x); }

error_text& error_text::operator<<(const std::vector<std::size_t>& shape) { return *this << shape_string(shape); }

error_text& error_text::operator<<(const index_at& at) { return *this << index_string(at.shape, at.flat); }

error_text& error_text::whole(long long x) { return *this << std::to_string(x); }

error_text& error_text::count(unsigned long long x) { return *this << std::to_string(x); }

void fail(const error_text& text) { throw argument_error(text.str()); }

}  // namespace attnlab
