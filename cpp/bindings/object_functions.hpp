#pragma once
// Engine objects are registered as plain functions on their address, not as embind
// classes, whose JavaScript support would add about 6 KB (minified) to the script:
// "<Kind>_new()", "<Kind>_delete(address)" and "<Kind>_<method>(address, ...)".
// web/src/api/engine-object.js turns them back into objects.

#include <emscripten/bind.h>

#include <cstddef>
#include <cstdint>

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

/// The registered names "<Kind>_<name>", written into one buffer that each registration
/// reuses (embind copies a name when it is registered). Not a template: the joining code
/// exists once, not once per method.
class function_names {
public:
    explicit function_names(const char* kind);
    const char* operator()(const char* name);

private:
    char text_[64];
    std::size_t kind_length_;
};

template <class T>
class object_functions {
public:
    explicit object_functions(const char* kind) : names_(kind) {
        emscripten::function(names_("new"),
                             +[]() { return static_cast<double>(reinterpret_cast<std::uintptr_t>(new T())); });
        emscripten::function(names_("delete"), +[](double address) { delete &object_at<T>(address); });
    }
    template <auto M>
    object_functions& method(const char* name) {
        emscripten::function(names_(name), method_function<M>(M));
        return *this;
    }

private:
    function_names names_;
};

}  // namespace attnlab::bindings
