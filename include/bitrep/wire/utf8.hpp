// UTF-8 well-formedness, as the standard's string reader must check it:
// overlong forms, surrogates, code points above U+10FFFF, truncated
// sequences, stray continuation bytes and invalid lead bytes are malformed.
#pragma once

#include <cstddef>
#include <cstdint>

namespace bitrep::detail {

/// Follows the Unicode "well-formed UTF-8 byte sequences" table: the first
/// continuation byte's allowed range depends on the lead byte, which is what
/// excludes overlongs (E0, F0), surrogates (ED) and values past U+10FFFF (F4).
inline bool is_valid_utf8(const unsigned char* text, std::size_t size) noexcept
{
    std::size_t i = 0;
    while (i < size) {
        const unsigned char lead = text[i];
        if (lead < 0x80) {
            ++i;
            continue;
        }
        int continuation_count;
        unsigned char first_low = 0x80, first_high = 0xBF;
        if (lead >= 0xC2 && lead <= 0xDF) {
            continuation_count = 1;
        } else if (lead >= 0xE0 && lead <= 0xEF) {
            continuation_count = 2;
            if (lead == 0xE0) first_low = 0xA0;
            if (lead == 0xED) first_high = 0x9F;
        } else if (lead >= 0xF0 && lead <= 0xF4) {
            continuation_count = 3;
            if (lead == 0xF0) first_low = 0x90;
            if (lead == 0xF4) first_high = 0x8F;
        } else {
            return false; // stray continuation (80-BF), overlong lead (C0, C1) or F5-FF
        }
        if (size - i - 1 < static_cast<std::size_t>(continuation_count))
            return false; // truncated
        if (text[i + 1] < first_low || text[i + 1] > first_high)
            return false;
        for (int k = 2; k <= continuation_count; ++k)
            if ((text[i + k] & 0xC0) != 0x80)
                return false;
        i += static_cast<std::size_t>(continuation_count) + 1;
    }
    return true;
}

} // namespace bitrep::detail
