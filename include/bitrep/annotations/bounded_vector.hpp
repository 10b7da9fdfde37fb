// bounded_vector<T, MaxSize>: a std::vector whose size the wire bounds.
#pragma once

#include <compare>
#include <cstddef>
#include <initializer_list>
#include <utility>
#include <vector>

namespace bitrep {

/// At most MaxSize elements, sent as the size in bits_required(0, MaxSize)
/// bits followed by each element. A longer value is refused on write; a read
/// never allocates more than MaxSize elements.
template <class T, std::size_t MaxSize>
class bounded_vector {
public:
    using value_type = T;
    using reference = typename std::vector<T>::reference; // a proxy for bool
    using const_reference = typename std::vector<T>::const_reference;
    using size_type = std::size_t;
    using iterator = typename std::vector<T>::iterator;
    using const_iterator = typename std::vector<T>::const_iterator;
    static constexpr std::size_t max_elements = MaxSize;

    bounded_vector() = default;
    bounded_vector(std::initializer_list<T> items) : items_(items) {}
    bounded_vector(std::vector<T> items) noexcept : items_(std::move(items)) {}

    operator const std::vector<T>&() const noexcept { return items_; }
    const std::vector<T>& vector() const noexcept { return items_; }
    std::vector<T>& vector() noexcept { return items_; }

    std::size_t size() const noexcept { return items_.size(); }
    bool empty() const noexcept { return items_.empty(); }
    static constexpr std::size_t max_size() noexcept { return MaxSize; }
    bool fits() const noexcept { return items_.size() <= MaxSize; }

    reference operator[](std::size_t i) noexcept { return items_[i]; }
    const_reference operator[](std::size_t i) const noexcept { return items_[i]; }
    reference at(std::size_t i) { return items_.at(i); }
    const_reference at(std::size_t i) const { return items_.at(i); }
    reference front() noexcept { return items_.front(); }
    const_reference front() const noexcept { return items_.front(); }
    reference back() noexcept { return items_.back(); }
    const_reference back() const noexcept { return items_.back(); }
    T* data() noexcept { return items_.data(); }
    const T* data() const noexcept { return items_.data(); }
    iterator begin() noexcept { return items_.begin(); }
    iterator end() noexcept { return items_.end(); }
    const_iterator begin() const noexcept { return items_.begin(); }
    const_iterator end() const noexcept { return items_.end(); }

    void push_back(const T& item) { items_.push_back(item); }
    void push_back(T&& item) { items_.push_back(std::move(item)); }
    template <class... Args>
    reference emplace_back(Args&&... args) { return items_.emplace_back(std::forward<Args>(args)...); }
    void pop_back() { items_.pop_back(); }
    iterator erase(const_iterator at) { return items_.erase(at); }
    iterator erase(const_iterator first, const_iterator last) { return items_.erase(first, last); }
    void clear() noexcept { items_.clear(); }
    void resize(std::size_t n) { items_.resize(n); }
    void reserve(std::size_t n) { items_.reserve(n); }

    friend bool operator==(const bounded_vector&, const bounded_vector&) = default;
    friend auto operator<=>(const bounded_vector& a, const bounded_vector& b) { return a.items_ <=> b.items_; }

private:
    std::vector<T> items_;
};

} // namespace bitrep
