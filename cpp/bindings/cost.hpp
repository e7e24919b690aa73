#pragma once
// Registrations for the cost functions (tiled attention, online softmax, cost figures, byte
// calculators, KV cache); called once from bindings.cpp.

namespace attnlab::bindings {

void register_cost();

}  // namespace attnlab::bindings
