// bounded_string<MaxLength>: a std::string whose length the wire bounds.
#pragma once

#include <compare>
#include <cstddef>
#include <iosfwd>
#include <string>
#include <string_view>

namespace bitrep {

/// A UTF-8 string of at most MaxLength bytes, sent as the standard's string
/// with buffer_size MaxLength + 1: the length in bits_required(0, MaxLength)
/// bits, then the bytes, aligned. A longer value, a zero byte or malformed
/// UTF-8 is refused on write (and on read). Reading never allocates more than
/// MaxLength bytes.
template <std::size_t MaxLength>
class bounded_string {
public:
    using value_type = char;
    using size_type = std::size_t;
    using iterator = std::string::iterator;
    using const_iterator = std::string::const_iterator;
    static constexpr std::size_t max_length = MaxLength;

    bounded_string() = default;
    bounded_string(const char* text) : text_(text) {}
    bounded_string(std::string_view text) : text_(text) {}
    bounded_string(std::string text) noexcept : text_(std::move(text)) {}
    bounded_string& operator=(const char* text) { text_ = text; return *this; }
    bounded_string& operator=(std::string_view text) { text_ = text; return *this; }
    bounded_string& operator=(std::string text) noexcept { text_ = std::move(text); return *this; }

    operator std::string_view() const noexcept { return text_; }
    operator const std::string&() const noexcept { return text_; }
    const std::string& str() const noexcept { return text_; }
    std::string& str() noexcept { return text_; }
    const char* c_str() const noexcept { return text_.c_str(); }
    const char* data() const noexcept { return text_.data(); }

    std::size_t size() const noexcept { return text_.size(); }
    std::size_t length() const noexcept { return text_.size(); }
    bool empty() const noexcept { return text_.empty(); }
    static constexpr std::size_t max_size() noexcept { return MaxLength; }
    bool fits() const noexcept { return text_.size() <= MaxLength; }

    char& operator[](std::size_t i) noexcept { return text_[i]; }
    const char& operator[](std::size_t i) const noexcept { return text_[i]; }
    iterator begin() noexcept { return text_.begin(); }
    iterator end() noexcept { return text_.end(); }
    const_iterator begin() const noexcept { return text_.begin(); }
    const_iterator end() const noexcept { return text_.end(); }

    void push_back(char c) { text_.push_back(c); }
    void pop_back() { text_.pop_back(); }
    void clear() noexcept { text_.clear(); }
    void resize(std::size_t n) { text_.resize(n); }
    bounded_string& append(std::string_view more) { text_.append(more); return *this; }
    bounded_string& operator+=(std::string_view more) { return append(more); }
    bounded_string& operator+=(char c) { push_back(c); return *this; }

    friend bool operator==(const bounded_string&, const bounded_string&) noexcept = default;
    friend std::strong_ordering operator<=>(const bounded_string& a, const bounded_string& b) noexcept { return a.text_ <=> b.text_; }
    friend bool operator==(const bounded_string& a, std::string_view b) noexcept { return a.text_ == b; }
    friend std::strong_ordering operator<=>(const bounded_string& a, std::string_view b) noexcept { return std::string_view(a.text_) <=> b; }
    friend bool operator==(const bounded_string& a, const char* b) noexcept { return a.text_ == b; }
    friend std::strong_ordering operator<=>(const bounded_string& a, const char* b) noexcept { return std::string_view(a.text_) <=> std::string_view(b); }
    friend bool operator==(const bounded_string& a, const std::string& b) noexcept { return a.text_ == b; }
    friend std::strong_ordering operator<=>(const bounded_string& a, const std::string& b) noexcept { return a.text_ <=> b; }

    template <class CharT, class Traits>
    friend std::basic_ostream<CharT, Traits>& operator<<(std::basic_ostream<CharT, Traits>& out, const bounded_string& s)
    {
        return out << s.text_;
    }

private:
    std::string text_;
};

} // namespace bitrep
