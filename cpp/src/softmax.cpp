#include "attnlab/softmax.hpp"

#include <string>
#include <vector>

#include "attnlab/errors.hpp"
#include "attnlab/kernels.hpp"

namespace attnlab {

tensor softmax(const tensor& x, int axis) {
    const std::string fn = "softmax";
    const auto rank = static_cast<int>(x.dimension());
    if (rank == 0) fail(error_text(fn) << ": x is a scalar; expected a tensor of rank >= 1");
    if (axis < -rank || axis >= rank) {
        fail(error_text(fn) << ": axis = " << axis << " is out of range for x of rank " << rank
            << "; expected an integer in [" << -rank << ", " << rank - 1 << "]");
    }
    require_nonempty(x, fn, "x");
    require_finite(x, fn, "x", /*allow_neg_inf=*/true);
    const auto ax = static_cast<std::size_t>(axis < 0 ? axis + rank : axis);

    // View x as [outer, len, inner]: lines along the axis are strided by `inner`.
    const shape_t shape = shape_of(x);
    std::size_t outer = 1, inner = 1;
    for (std::size_t d = 0; d < ax; ++d) outer *= shape[d];
    for (std::size_t d = ax + 1; d < shape.size(); ++d) inner *= shape[d];
    const std::size_t len = shape[ax];

    tensor y = empty(shape);
    const float* src = x.data();
    float* dst = y.data();
    if (inner == 1) {
        for (std::size_t o = 0; o < outer; ++o) kernels::softmax_row(src + o * len, dst + o * len, len);
        return y;
    }
    std::vector<float> line(len);
    for (std::size_t o = 0; o < outer; ++o) {
        for (std::size_t i = 0; i < inner; ++i) {
            const std::size_t base = o * len * inner + i;
            for (std::size_t j = 0; j < len; ++j) line[j] = src[base + j * inner];
            kernels::softmax_row(line.data(), line.data(), len);
            for (std::size_t j = 0; j < len; ++j) dst[base + j * inner] = line[j];
        }
    }
    return y;
}

}  // namespace attnlab
