#pragma once
// embind registration of the head summary of pasted attention patterns (attnlab/patterns.hpp):
// `headSummary`; called once from bindings.cpp.

namespace attnlab::bindings {

void register_heads();

}  // namespace attnlab::bindings
