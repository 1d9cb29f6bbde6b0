// desc::from_fields and desc::fields without oneDNN: the round trip at compile time and on
// every tag, and each check from_fields makes, with its message.
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include <memfmt/memfmt.hpp>

namespace {

using Catch::Matchers::Contains;
using memfmt::data_type;
using memfmt::desc;
using memfmt::desc_fields;
using memfmt::dim;
using memfmt::dims;

constexpr dim max_dim = std::numeric_limits<dim>::max();

// ---- the round trip at compile time: a plain descriptor, a blocked one, views ----
constexpr desc plain(dims{3, 4}, data_type::f32, memfmt::tag<"ab">);
static_assert(desc::from_fields(plain.fields()) == plain);
constexpr desc blocked(dims{2, 17, 5, 4}, data_type::f32, memfmt::tag<"nChw16c">);
static_assert(desc::from_fields(blocked.fields()) == blocked);
constexpr desc view = blocked.submemory_desc(dims{2, 16, 5, 4}, dims{0, 0, 0, 0});
static_assert(desc::from_fields(view.fields()) == view);
constexpr desc plain_view = plain.submemory_desc(dims{2, 2}, dims{1, 1});
static_assert(desc::from_fields(plain_view.fields()) == plain_view);
static_assert(desc::from_fields(plain_view.fields()).get_submemory_offset() == 5);

// ---- sizes near 2^63, which from_fields takes without overflowing (constant evaluation
// fails on an overflow) ----

/// One dim of 5 elements in blocks of 3, its padded dim one short of 2^63 (a multiple of 3).
constexpr desc_fields padded_near_max() {
  desc_fields f;
  f.logical = dims{5};
  f.dt = data_type::u8;
  f.padded = dims{max_dim - 1};
  f.padded_offsets = dims{0};
  f.strides = dims{3};
  f.inner_blks = dims{3};
  f.inner_idxs = dims{0};
  return f;
}
static_assert(desc::from_fields(padded_near_max()).get_padded_dims() == dims{max_dim - 1});

/// A 2x2 view whose outer stride reaches 2^62 elements, at `offset0`.
constexpr desc_fields far_view(dim offset0, data_type dt = data_type::u8, dim stride = dim{1} << 61) {
  desc_fields f;
  f.logical = dims{2, 2};
  f.dt = dt;
  f.padded = dims{2, 2};
  f.padded_offsets = dims{0, 0};
  f.strides = dims{stride, 1};
  f.offset0 = offset0;
  return f;
}
// the last byte it reaches is the last below 2^63
constexpr dim last_offset0 = max_dim - (dim{1} << 62);
static_assert(desc::from_fields(far_view(last_offset0)).offset(dims{1, 1}) == last_offset0 + (dim{1} << 61) + 1);

struct named_tag {
  std::string_view name;
};
constexpr named_tag all_tags[] = {
#define MEMFMT_TAG_NAME(name) {#name},
#include "memfmt/tag/onednn_names.inc"
#undef MEMFMT_TAG_NAME
};

/// Every field the same, strides of unit dims included (== skips those).
bool same_fields(const desc_fields& x, const desc_fields& y) {
  return x.logical == y.logical && x.dt == y.dt && x.padded == y.padded && x.padded_offsets == y.padded_offsets &&
         x.offset0 == y.offset0 && x.strides == y.strides && x.inner_blks == y.inner_blks &&
         x.inner_idxs == y.inner_idxs && x.extra == y.extra;
}

void check_round_trip(const desc& d) {
  const desc back = desc::from_fields(d.fields());
  CHECK(back == d);
  CHECK(same_fields(back.fields(), d.fields()));
  CHECK(back.get_size() == d.get_size());
  CHECK(back.str() == d.str());
}

/// The fields of nChw16c with 10 channels (padded to 16), edited by `edit`.
template <class Edit>
desc_fields edited(Edit edit) {
  desc_fields f = desc(dims{2, 10, 3, 3}, data_type::f32, "nChw16c").fields();
  edit(f);
  return f;
}

}  // namespace

TEST_CASE("from_fields(fields()) is the descriptor again, on every tag, its views and with extra information",
          "[desc][fields]") {
  const dim sizes[] = {17, 5, 3, 7, 2, 9, 1, 4, 3, 2, 2, 1};
  int k = 0, views = 0;
  for (const named_tag& t : all_tags) {
    const memfmt::tag_parse_result parsed = memfmt::parse_tag(t.name);
    REQUIRE(parsed.ok());
    dims d, box, at;
    for (int i = 0; i < parsed.layout.ndims; ++i) {
      d.push_back(sizes[i]);
      box.push_back(sizes[i] > 1 ? sizes[i] - 1 : 1);
      at.push_back(0);
    }
    const data_type dt = (k++ % 2) == 0 ? data_type::s8 : data_type::bf16;
    INFO(t.name);
    const desc whole(d, dt, t.name);
    check_round_trip(whole);
    // (a box oneDNN's rules refuse, one that stops short of a block's end, is skipped)
    if (const desc v = whole.submemory_desc(box, at, true); !v.is_zero()) {
      check_round_trip(v);
      ++views;
    }
    check_round_trip(whole.with_extra({memfmt::extra_flags::compensation_conv_s8s8 | memfmt::extra_flags::scale_adjust,
                                       1, 0.5f, 0}));
  }
  CHECK(views > 100);
  check_round_trip(desc(dims{4, 5}, data_type::u8, dims{0, 1}));  // broadcast
  check_round_trip(desc(dims{2, 0, 3}, data_type::u8, dims{5, 5, 5}));  // no element
}

TEST_CASE("from_fields refuses fields that break an invariant of desc, naming the field", "[desc][fields][errors]") {
  const auto refused = [](const desc_fields& f, const std::string& why) {
    INFO(why);
    CHECK_THROWS_AS(desc::from_fields(f), memfmt::error);
    CHECK_THROWS_WITH(desc::from_fields(f), Contains(why));
  };
  // the unedited fields make a descriptor
  CHECK_NOTHROW(desc::from_fields(edited([](desc_fields&) {})));

  // sizes of the fields
  refused(edited([](desc_fields& f) { f.strides = dims{1, 2, 3}; }),
          "4 padded dims, 4 padded offsets and 3 strides for 4 dims");
  refused(edited([](desc_fields& f) { f.padded_offsets = dims{0, 0}; }), "2 padded offsets");
  refused(edited([](desc_fields& f) { f.inner_idxs = dims{1, 1}; }), "1 inner blocks but 2 inner block dims");

  // data type and dims
  refused(edited([](desc_fields& f) { f.dt = data_type::undef; }), "data type is undef");
  refused(edited([](desc_fields& f) { f.dt = static_cast<data_type>(42); }), "data type 42 is not a memfmt data type");
  refused(edited([](desc_fields& f) { f.logical[2] = -1; }), "dim 2 is negative");

  // inner blocks
  refused(edited([](desc_fields& f) { f.inner_blks = dims{0}; }), "inner block 0 has size 0");
  refused(edited([](desc_fields& f) { f.inner_idxs = dims{4}; }), "inner block 0 names dim 4 of a 4-D descriptor");
  refused(edited([](desc_fields& f) { f.inner_idxs = dims{-1}; }), "inner block 0 names dim -1");
  {
    // inner blocks of 2^31 elements are the most a descriptor has
    desc_fields f;
    f.logical = dims{1, 1};
    f.dt = data_type::u8;
    f.padded = dims{dim{1} << 16, dim{1} << 15};
    f.padded_offsets = dims{0, 0};
    f.strides = dims{dim{1} << 31, dim{1} << 31};
    f.inner_blks = dims{dim{1} << 16, dim{1} << 15};
    f.inner_idxs = dims{0, 1};
    CHECK(desc::from_fields(f).get_inner_blks() == f.inner_blks);
    f.inner_blks[1] *= 2;
    f.padded[1] *= 2;
    refused(f, "the inner blocks hold more than 2^31 elements");
  }

  // padding
  refused(edited([](desc_fields& f) { f.padded_offsets[1] = -1; }), "dim 1: padded offset -1 is negative");
  refused(edited([](desc_fields& f) { f.padded[1] = 8; }), "dim 1: 10 elements at padded offset 0 do not fit in the padded dim 8");
  refused(edited([](desc_fields& f) { f.padded_offsets[1] = 7; }),
          "dim 1: 10 elements at padded offset 7 do not fit in the padded dim 16");
  // 10 channels fit in 24, but 24 is not whole blocks of 16
  refused(edited([](desc_fields& f) { f.padded[1] = 24; }), "dim 1: padded dim 24 is not a multiple of its block 16");
  // less than one block: a view inside one block
  CHECK(desc::from_fields(edited([](desc_fields& f) { f.padded[1] = 12; })).get_padded_dims()[1] == 12);

  // strides
  refused(edited([](desc_fields& f) { f.strides[2] = -48; }), "stride 2 is negative (-48)");
  refused(edited([](desc_fields& f) { f.strides[3] = 1; }), "strides overlap: dim 3");

  // offset0
  refused(edited([](desc_fields& f) { f.offset0 = -3; }), "offset0 -3 is negative");

  // extra information
  refused(edited([](desc_fields& f) { f.extra.flags = 0x4; }), "extra flags 0x4 are unknown");
  refused(edited([](desc_fields& f) { f.extra.flags = 0x1 | 0x30; }), "extra flags 0x30 are unknown");
  refused(edited([](desc_fields& f) {
            f.extra.flags = memfmt::extra_flags::compensation_conv_s8s8;
            f.extra.compensation_mask = 1 << 4;
          }),
          "compensation mask names a dim beyond the 4 dims");
  // a mask without its flag means nothing: dropped, not refused
  const desc leftover = desc::from_fields(edited([](desc_fields& f) {
    f.extra.compensation_mask = 1 << 4;
    f.extra.asymm_compensation_mask = 1 << 5;
    f.extra.scale_adjust = 0.5f;
  }));
  CHECK(leftover.get_extra() == memfmt::extra_info{});
}

TEST_CASE("fields() of a descriptor without a layout throws", "[desc][fields][errors]") {
  CHECK_THROWS_WITH(desc::any(dims{4, 8}, data_type::f32).fields(),
                    Contains("desc::fields: needs a blocked descriptor, not format_kind::any"));
  CHECK_THROWS_WITH(desc().fields(), Contains("desc::fields: needs a blocked descriptor, not the zero descriptor"));
}

TEST_CASE("from_fields refuses descriptors past 2^63 bytes, without overflowing on the way", "[desc][fields][errors]") {
  const std::string past = "reaches past 2^63 bytes";
  // padded dims near 2^63: their blocks are counted without overflowing (the static_assert
  // above); u8 fits, f32 does not
  CHECK(desc::from_fields(padded_near_max()).get_padded_dims() == dims{max_dim - 1});
  desc_fields f32_near_max = padded_near_max();
  f32_near_max.dt = data_type::f32;
  CHECK_THROWS_WITH(desc::from_fields(f32_near_max), Contains(past));

  // offset0 plus the elements the view reaches, in elements ...
  CHECK(desc::from_fields(far_view(last_offset0)).get_submemory_offset() == last_offset0);
  CHECK_THROWS_WITH(desc::from_fields(far_view(last_offset0 + 1)), Contains(past));
  CHECK_THROWS_WITH(desc::from_fields(far_view((dim{1} << 62) + (dim{1} << 61) + 5)), Contains(past));
  // ... and in bytes: 2^59 f32 elements reached from offset0, each sum below 2^63 alone
  const dim f32_last = (dim{1} << 61) - (dim{1} << 59) - 1;
  CHECK(desc::from_fields(far_view(f32_last, data_type::f32, dim{1} << 58)).get_submemory_offset() == f32_last);
  CHECK_THROWS_WITH(desc::from_fields(far_view(f32_last + 1, data_type::f32, dim{1} << 58)), Contains(past));
}
