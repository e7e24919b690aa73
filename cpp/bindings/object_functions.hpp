#pragma once
// Engine objects are registered as plain functions on their address, not as embind
// classes, whose JavaScript support would add about 6 KB (minified) to the script:
// "<Kind>_new()", "<Kind>_delete(address)" and "<Kind>_<method>(address, ...)".
// web/src/engine-object.js turns them back into objects.

#include <emscripten/bind.h>

#include <cstdint>
#include <string>

namespace attnlab::bindings {

template <class T>
T& object_at(double address) {
    return *reinterpret_cast<T*>(static_cast<std::uintptr_t>(address));
}

template <auto M, class T, class R, class... A>
R call_method(double address, A... args) {
    return (object_at<T>(address).*M)(args...);
}

template <auto M, class T, class R, class... A>
constexpr auto method_function(R (T::*)(A...)) {
    return &call_method<M, T, R, A...>;
}

template <auto M, class T, class R, class... A>
constexpr auto method_function(R (T::*)(A...) const) {
    return &call_method<M, const T, R, A...>;
}

template <class T>
class object_functions {
public:
    explicit object_functions(const std::string& kind) : kind_(kind) {
        emscripten::function((kind_ + "_new").c_str(),
                             +[]() { return static_cast<double>(reinterpret_cast<std::uintptr_t>(new T())); });
        emscripten::function((kind_ + "_delete").c_str(), +[](double address) { delete &object_at<T>(address); });
    }
    template <auto M>
    object_functions& method(const char* name) {
        emscripten::function((kind_ + "_" + name).c_str(), method_function<M>(M));
        return *this;
    }

private:
    std::string kind_;
};

}  // namespace attnlab::bindings
