// The readers' hash tables keyed by numbers from a log: keys crafted to share a bucket of
// std::hash's tables spread out under SeededHash.
#include <catch2/catch.hpp>

#include <algorithm>
#include <unordered_set>

#include "timeline/base/seeded_hash.hpp"

using memlog::timeline::NumberSet;

namespace {

template <typename Set>
size_t longestBucket(const Set& set) {
    size_t longest = 0;
    for (size_t bucket = 0; bucket < set.bucket_count(); ++bucket) longest = std::max(longest, set.bucket_size(bucket));
    return longest;
}

}  // namespace

TEST_CASE("keys that are multiples of a table's bucket count share no bucket under the seeded hash") {
    constexpr uint64_t kKeys = 20'000;
    std::unordered_set<uint64_t> plain;
    plain.reserve(kKeys);
    const uint64_t buckets = plain.bucket_count();  // a prime: the table takes the key modulo it
    NumberSet<uint64_t> seeded;
    seeded.reserve(kKeys);
    REQUIRE(seeded.bucket_count() == buckets);
    for (uint64_t i = 1; i <= kKeys; ++i) {
        plain.insert(i * buckets);
        seeded.insert(i * buckets);
    }
    REQUIRE(plain.bucket_count() == buckets);  // no rehash: the crafted keys all met in bucket 0
    CHECK(plain.bucket_size(0) == kKeys);
    CHECK(seeded.size() == kKeys);
    CHECK(longestBucket(seeded) <= 16);  // about 8 expected of 20,000 keys in as many buckets
}

TEST_CASE("the seeded hash is one function within a run: equal keys, equal hashes") {
    const memlog::timeline::SeededHash a, b;
    for (uint64_t key : {0ull, 1ull, 0x7f00'0000'1000ull, ~0ull}) CHECK(a(key) == b(key));
    CHECK(a(1) != a(2));
}
