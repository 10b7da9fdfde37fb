// bitrep: bit-packed serialization of annotated structs (serialize 1.0 wire).
#pragma once

#include <bitrep/annotations.hpp>
#include <bitrep/annotations/duration.hpp>
#include <bitrep/bytes.hpp>
#include <bitrep/codec.hpp>
#include <bitrep/instantiate.hpp>
#include <bitrep/predict.hpp>
#include <bitrep/reflect.hpp>
#include <bitrep/renames.hpp>
#include <bitrep/save/save.hpp>
#include <bitrep/save/schema.hpp>
#include <bitrep/serialize.hpp>
#include <bitrep/status.hpp>
#include <bitrep/wire/bits.hpp>
#include <bitrep/wire/stream.hpp>
