// Math types of a game's own, as the adapters (each_component,
// smallest_three) meet them: some laid out as the adapter reads them (in
// place), some not (converted). engine_test and engine_delta_test send the
// same ones, so both take them from here.
#pragma once

namespace adapter_math_types {

/// Three floats in x, y, z order with a length(): in place.
struct Vec3 {
    float x = 0, y = 0, z = 0;
    static constexpr int length() { return 3; }
    float& operator[](int i) { return i == 0 ? x : i == 1 ? y : z; }
    const float& operator[](int i) const { return i == 0 ? x : i == 1 ? y : z; }
    friend bool operator==(const Vec3&, const Vec3&) = default;
};
/// Components out of order in memory: not in place.
struct Swizzled {
    float z = 0, x = 0, y = 0;
    float& operator[](int i) { return i == 0 ? x : i == 1 ? y : z; }
    const float& operator[](int i) const { return i == 0 ? x : i == 1 ? y : z; }
    friend bool operator==(const Swizzled&, const Swizzled&) = default;
};
/// Doubles sent as quantized floats: converted, not in place.
struct DVec2 {
    double a = 0, b = 0;
    double& operator[](int i) { return i == 0 ? a : b; }
    const double& operator[](int i) const { return i == 0 ? a : b; }
    friend bool operator==(const DVec2&, const DVec2&) = default;
};
struct IVec2 {
    int a = 0, b = 0;
    int& operator[](int i) { return i == 0 ? a : b; }
    const int& operator[](int i) const { return i == 0 ? a : b; }
    friend bool operator==(const IVec2&, const IVec2&) = default;
};
/// x, y, z, w: in place.
struct Quat {
    float x = 0, y = 0, z = 0, w = 1;
    friend bool operator==(const Quat&, const Quat&) = default;
};
/// w first in memory: not in place.
struct WQuat {
    float w = 1, x = 0, y = 0, z = 0;
    friend bool operator==(const WQuat&, const WQuat&) = default;
};

} // namespace adapter_math_types
