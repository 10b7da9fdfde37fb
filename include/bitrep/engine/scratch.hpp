// A walk's working memory, owned by whoever runs the walk and passed to it:
// the wire objects of values sent as another type, a map's entries in key
// order, the entry a read decodes before it joins its map. Nothing of it is
// per thread or per type; a run that needs none touches none.
#pragma once

#include <algorithm>
#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace bitrep::engine {

/// A stack of objects in blocks of memory that stay where they are: the
/// first block inside the scratch itself (no allocation for the usual few
/// small objects), further ones allocated as needed and kept for reuse
/// while the scratch lives. Objects are released in the reverse order of
/// their making, down to a mark taken before them; the scratch's end
/// releases what is left.
class scratch {
    struct header;

public:
    /// Where the stack stood: release(mark) destroys what was made since.
    using mark = const header*;

    scratch() noexcept = default;
    scratch(const scratch&) = delete;
    scratch& operator=(const scratch&) = delete;
    ~scratch()
    {
        release(nullptr);
        while (spare_ != nullptr)
            delete[] reinterpret_cast<std::byte*>(std::exchange(spare_, spare_->next));
    }

    [[nodiscard]] mark top() const noexcept { return top_; }

    /// Destroys the objects made since `to`, the latest first.
    void release(mark to) noexcept
    {
        while (top_ != to)
            pop();
    }

    /// A W made from args, destroyed when released.
    template <class W, class... Args>
    W& make(Args&&... args)
    {
        static_assert(alignof(W) <= alignof(std::max_align_t), "an over-aligned type has no room in a scratch");
        const position before = at_;
        void* room = take(sizeof(W));
        rewind undo{this, before}; // should W's constructor throw
        W* made = ::new (room) W(std::forward<Args>(args)...);
        undo.to = nullptr;
        push(before, made, std::is_trivially_destructible_v<W> ? nullptr : &destroy<W>);
        return *made;
    }

    /// Room for n objects P (trivially destructible), released like the rest.
    template <class P>
    P* array(std::size_t n)
    {
        static_assert(std::is_trivially_destructible_v<P> && alignof(P) <= alignof(std::max_align_t));
        const position before = at_;
        void* room = take(n == 0 ? 1 : n * sizeof(P));
        push(before, room, nullptr);
        return static_cast<P*>(room);
    }

private:
    static constexpr std::size_t align = alignof(std::max_align_t);
    static constexpr std::size_t first_size = 512;

    /// A block after the first, allocated with its room behind it.
    struct block {
        block* next;
        std::size_t size;
        std::byte* room() noexcept { return reinterpret_cast<std::byte*>(this) + sizeof(block); }
    };
    static_assert(sizeof(block) % align == 0);

    /// Where the next object goes: in the first block (`in` null) or in
    /// `in`, `used` bytes from its start.
    struct position {
        block* in = nullptr;
        std::size_t used = 0;
    };

    /// Before each object (it starts `object_at` bytes after its header):
    /// how to destroy it and where the stack stood.
    struct header {
        const header* below;
        void (*destroy)(void*) noexcept;
        position before;
    };

    /// Gives back the room taken for an object whose making failed.
    struct rewind {
        scratch* to;
        position before;
        rewind(scratch* s, position p) noexcept : to(s), before(p) {}
        rewind(const rewind&) = delete;
        rewind& operator=(const rewind&) = delete;
        ~rewind()
        {
            if (to != nullptr)
                to->at_ = before;
        }
    };

    template <class W>
    static void destroy(void* w) noexcept
    {
        static_cast<W*>(w)->~W();
    }

    static constexpr std::size_t rounded(std::size_t n) noexcept { return (n + align - 1) / align * align; }
    static constexpr std::size_t object_at = (sizeof(header) + align - 1) / align * align;

    std::byte* base(const position& p) noexcept { return p.in == nullptr ? first_ : p.in->room(); }
    std::size_t size(const position& p) const noexcept { return p.in == nullptr ? first_size : p.in->size; }

    /// Room for a header and then `bytes`: the object's address.
    void* take(std::size_t bytes)
    {
        const std::size_t need = object_at + rounded(bytes);
        if (size(at_) - at_.used < need)
            next_block(need);
        void* object = base(at_) + at_.used + object_at;
        at_.used += need;
        return object;
    }

    /// On to a block with room for `need` bytes: the one kept after the
    /// current, if large enough, or a new one.
    void next_block(std::size_t need)
    {
        block* const after = at_.in == nullptr ? spare_ : at_.in->next;
        if (after != nullptr && after->size >= need) {
            at_ = {after, 0};
            return;
        }
        const std::size_t size = rounded(std::max(need, 2 * this->size(at_)));
        auto* made = reinterpret_cast<block*>(new std::byte[sizeof(block) + size]);
        made->next = after;
        made->size = size;
        if (at_.in == nullptr)
            spare_ = made;
        else
            at_.in->next = made;
        at_ = {made, 0};
    }

    void push(const position& before, void* object, void (*destroy)(void*) noexcept) noexcept
    {
        top_ = ::new (static_cast<std::byte*>(object) - object_at) header{top_, destroy, before};
    }

    void pop() noexcept
    {
        const header* h = top_;
        top_ = h->below;
        at_ = h->before;
        if (h->destroy != nullptr)
            h->destroy(const_cast<std::byte*>(reinterpret_cast<const std::byte*>(h)) + object_at);
    }

    alignas(align) std::byte first_[first_size];
    position at_{};
    const header* top_ = nullptr;
    block* spare_ = nullptr; // the blocks after the first, in order
};

/// Releases, as it goes, what its scratch made since it came.
class scratch_scope {
public:
    explicit scratch_scope(scratch& work) noexcept : work_(work), mark_(work.top()) {}
    scratch_scope(const scratch_scope&) = delete;
    scratch_scope& operator=(const scratch_scope&) = delete;
    ~scratch_scope() { work_.release(mark_); }

private:
    scratch& work_;
    scratch::mark mark_;
};

} // namespace bitrep::engine
