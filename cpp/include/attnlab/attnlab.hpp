#pragma once
/// @file attnlab.hpp
/// @brief Everything the library offers, in one include.

#include "attnlab/attention.hpp"
#include "attnlab/cost.hpp"
#include "attnlab/errors.hpp"
#include "attnlab/examples.hpp"
#include "attnlab/explain.hpp"
#include "attnlab/kv_cache.hpp"
#include "attnlab/mask.hpp"
#include "attnlab/multihead.hpp"
#include "attnlab/random.hpp"
#include "attnlab/shapes.hpp"
#include "attnlab/softmax.hpp"
#include "attnlab/stats.hpp"
#include "attnlab/tensor.hpp"
#include "attnlab/tiled.hpp"
