// Erosion and dilation: the naive kernel, the decomposition of an element into rectangles,
// and the pass pipeline that runs each rectangle as a column pass then a row pass (plain or
// van Herk/Gil-Werman, row_kernels_morphology_vhgw.cpp).
//
// Pixels outside the image are ignored: a pass reads them as the operation's neutral value
// (255 for a minimum, 0 for a maximum), in the padding of its rows and as whole rows above
// and below the image. Every buffer is local to one call, so blocks may run concurrently.
#include <algorithm>
#include <vector>

#include "row_kernels.hpp"
#include "row_kernels_internal.hpp"
#include "row_kernels_morphology.hpp"

namespace parfilter::kernels {
namespace {

using detail::ColumnVhgw;
using detail::combine;
using detail::combine3;
using detail::kVhgwLanes;
using detail::MaxOp;
using detail::MinOp;
using detail::SourceRows;

/// The longest windows for which the plain pass is the fastest (docs/CPU_KERNELS.md). Along
/// a row the plain pass costs (w - 1) / 2 three-input passes, the doubling pass
/// ceil(log2 w) two-input ones (they tie at 6), and van Herk/Gil-Werman's two byte
/// transposes cost more than doubling's passes for any window up to the image width; down
/// the columns vHGW's three row operations already tie the plain pass at 3 rows.
constexpr int kPlainRowPassMax = 6;
constexpr int kPlainColumnPassMax = 3;

/// out(x, y) = op over set (i, j) of in(x + i - ax, y + j - ay), inside the image only.
template <typename Op>
void naive_rows(const ConstImageView& src, const ImageView& dst, RowRange rows,
                const StructuringElement& se) {
  const int width = src.width();
  const int height = src.height();
  const int channels = src.channels();
  const int filtered = detail::filtered_channels(channels);
  for (int y = rows.begin; y < rows.end; ++y) {
    std::uint8_t* out = dst.row(y);
    std::fill_n(out, dst.row_samples(), Op::kNeutral);
    for (int j = 0; j < se.height; ++j) {
      const auto span = se.row_spans[static_cast<std::size_t>(j)];
      const int sy = y + j - se.anchor_y;
      if (span.x1 <= span.x0 || sy < 0 || sy >= height) continue;
      const std::uint8_t* in = src.row(sy);
      for (int x = 0; x < width; ++x) {
        // Source columns [x + x0 - ax, x + x1 - ax), clipped to the image.
        const int lo = std::max(0, x + span.x0 - se.anchor_x);
        const int hi = std::min(width, x + span.x1 - se.anchor_x);
        for (int c = 0; c < filtered; ++c) {
          const std::ptrdiff_t at = static_cast<std::ptrdiff_t>(x) * channels + c;
          std::uint8_t acc = out[at];
          for (int sx = lo; sx < hi; ++sx) {
            acc = Op::apply(acc, in[static_cast<std::ptrdiff_t>(sx) * channels + c]);
          }
          out[at] = acc;
        }
      }
    }
    detail::copy_alpha(src, dst, y);
  }
}

/// A rectangle of an element (structuring_element_rects) as the passes read it: output (x, y)
/// reads columns [x + dx, x + dx + width) and rows [y + dy, y + dy + height).
struct MorphRect {
  int dx = 0;
  int width = 0;
  int dy = 0;
  int height = 0;
};

std::vector<MorphRect> decompose(const StructuringElement& se) {
  std::vector<MorphRect> rects;
  for (const SeRect& r : structuring_element_rects(se)) {
    rects.push_back({r.x0, r.x1 - r.x0, r.y0, r.y1 - r.y0});
  }
  return rects;
}

/// The plain column pass: op over source rows [y + dy, y + dy + height).
template <typename Op>
void plain_column(const SourceRows& rows, int y, const MorphRect& r, int height, std::uint8_t* out,
                  Loops loops) {
  // Rows outside the image are neutral: skip them (a window wholly outside stays neutral).
  const int first = std::max(0, y + r.dy);
  const int end = std::min(height, y + r.dy + r.height);
  if (end - first < 2) {
    std::copy_n(rows.row(first < end ? first : -1), rows.bytes(), out);
    return;
  }
  // Two rows per pass: the first pass reads the source rows straight, no copy.
  const std::uint8_t* acc = rows.row(first);
  int sy = first + 1;
  for (; sy + 1 < end; sy += 2) {
    combine3<Op>(acc, rows.row(sy), rows.row(sy + 1), out, rows.bytes(), loops);
    acc = out;
  }
  if (sy < end) combine<Op>(acc, rows.row(sy), out, rows.bytes(), loops);
}

/// The plain row pass into a dst row: target[x] = (or op=) op over padded pixels
/// [x, x + width). Its last combine stores as `last` says (a final output row); returns false
/// when that store did not happen (a one-pixel copy).
template <typename Op>
bool plain_row(const std::uint8_t* padded, std::uint8_t* target, std::size_t samples, int channels,
               int width, bool overwrite, Loops loops, const simd::RowStore& last) {
  const auto shifted = [&](int k) { return padded + static_cast<std::ptrdiff_t>(k) * channels; };
  int k = 0;
  if (overwrite && width == 1) {
    std::copy_n(padded, samples, target);
    return false;
  }
  if (overwrite) {
    // The first pass reads the shifted copies straight, no copy into target first.
    if (width == 2) {
      combine<Op>(shifted(0), shifted(1), target, samples, loops, last);
      return true;
    }
    combine3<Op>(shifted(0), shifted(1), shifted(2), target, samples, loops,
                 width == 3 ? last : simd::RowStore{});
    k = 3;
  }
  // Two shifted copies per pass.
  for (; k + 1 < width; k += 2) {
    combine3<Op>(target, shifted(k), shifted(k + 1), target, samples, loops,
                 k + 2 == width ? last : simd::RowStore{});
  }
  if (k < width) combine<Op>(target, shifted(k), target, samples, loops, last);
  return true;
}

/// The row pass by doubling: cur holds op over padded pixels [x, x + covered); one pass
/// doubles `covered` (op of cur at x and at x + covered) until the next doubling would
/// pass the window, and the last pass combines two windows that overlap to cover it:
/// ceil(log2 width) passes of two inputs, against (width - 1) / 2 of three for the plain
/// pass. `padded` (padded_samples long) is only read (its neutral padding serves the next
/// rows); the passes ping-pong between spare[0] and spare[1], each as long. The last pass
/// stores as `last` says.
template <typename Op>
void doubling_row(const std::uint8_t* padded, std::uint8_t* const spare[2], std::uint8_t* target,
                  std::size_t samples, std::size_t padded_samples, int channels, int width,
                  bool overwrite, Loops loops, const simd::RowStore& last) {
  const std::uint8_t* cur = padded;
  int covered = 1;
  std::size_t valid = padded_samples;  // samples of cur whose window lies in the padded row
  for (int pass = 0; 2 * covered <= width; ++pass) {
    const auto shift = static_cast<std::size_t>(covered) * channels;
    valid -= shift;
    std::uint8_t* next = spare[pass % 2];
    combine<Op>(cur, cur + shift, next, valid, loops);
    cur = next;
    covered *= 2;
  }
  const std::uint8_t* rest = cur + static_cast<std::ptrdiff_t>(width - covered) * channels;
  if (overwrite) {
    combine<Op>(cur, rest, target, samples, loops, last);
  } else {
    combine3<Op>(target, cur, rest, target, samples, loops, last);
  }
}

/// dst rows `rows` = (or op=) the rectangle's result: a column pass into padded rows (pixel
/// q holds column q + dx, neutral outside the image), then a row pass, kVhgwLanes rows at
/// a time. The last rectangle's pass also puts back src's alpha, each row right after its
/// row pass, while it is in cache.
template <typename Op>
void rect_pass(const ConstImageView& src, const ImageView& dst, RowRange rows, const MorphRect& r,
               MorphMethod method, bool overwrite, bool last, Loops loops) {
  const int width = src.width();
  const int channels = src.channels();
  const auto samples = static_cast<std::size_t>(src.row_samples());
  const bool vhgw_columns = method == MorphMethod::vhgw ||
                            (method == MorphMethod::fastest && r.height > kPlainColumnPassMax);
  const bool vhgw_row = r.width > 1 && method == MorphMethod::vhgw;
  const bool doubling_row_pass = method == MorphMethod::fastest && r.width > kPlainRowPassMax;
  // Source columns some window reads, and the padded row's length.
  const int first_col = std::clamp(r.dx, 0, width);
  const int end_col = std::clamp(width - 1 + r.dx + r.width, 0, width);
  const int span = width + r.width - 1;
  const int padded_pixels = vhgw_row ? (span + r.width - 1) / r.width * r.width : span;
  const auto padded_samples = static_cast<std::size_t>(padded_pixels) * channels;
  const std::ptrdiff_t column_offset = static_cast<std::ptrdiff_t>(first_col - r.dx) * channels;
  const SourceRows source(src, static_cast<std::ptrdiff_t>(first_col) * channels,
                          static_cast<std::size_t>(std::max(0, end_col - first_col)) * channels,
                          Op::kNeutral);

  std::vector<std::uint8_t> padded_storage(kVhgwLanes * padded_samples, Op::kNeutral);
  std::vector<std::uint8_t> out_storage(vhgw_row ? kVhgwLanes * samples : 0);
  std::uint8_t* padded[kVhgwLanes];
  std::uint8_t* out[kVhgwLanes];
  for (int lane = 0; lane < kVhgwLanes; ++lane) {
    padded[lane] = padded_storage.data() + lane * padded_samples;
    out[lane] = vhgw_row ? out_storage.data() + lane * samples : nullptr;
  }
  std::vector<std::uint8_t> scratch;
  std::vector<std::uint8_t> doubling_storage(doubling_row_pass ? 2 * padded_samples : 0);
  std::uint8_t* const doubling_spare[2] = {doubling_storage.data(),
                                           doubling_storage.data() + padded_samples};
  ColumnVhgw<Op> columns(source, rows.begin, r.dy, r.height, loops);

  // Row y's column pass into padded row p. With no source bytes no window reaches the image:
  // the padded rows stay neutral.
  const auto column_pass = [&](int y, std::uint8_t* p) {
    if (source.bytes() == 0) return;
    if (vhgw_columns) {
      columns.next(p + column_offset);
    } else {
      plain_column<Op>(source, y, r, src.height(), p + column_offset, loops);
    }
  };
  if (!vhgw_row) {
    // One row at a time: its padded row is read back by the row pass from L1.
    for (int y = rows.begin; y < rows.end; ++y) {
      column_pass(y, padded[0]);
      // The last rectangle's last combine writes the output row: alpha put back and streamed
      // there (output_store), not in another pass over the row.
      const simd::RowStore store = last ? detail::output_store(src, y, loops) : simd::RowStore{};
      bool stored = true;
      if (doubling_row_pass) {
        doubling_row<Op>(padded[0], doubling_spare, dst.row(y), samples, padded_samples, channels,
                         r.width, overwrite, loops, store);
      } else {
        stored = plain_row<Op>(padded[0], dst.row(y), samples, channels, r.width, overwrite, loops,
                               store);
      }
      if (last && (store.alpha == nullptr || !stored)) detail::copy_alpha(src, dst, y, loops);
    }
    return;
  }
  for (int y0 = rows.begin; y0 < rows.end; y0 += kVhgwLanes) {
    const int lanes = std::min(kVhgwLanes, rows.end - y0);
    for (int lane = 0; lane < lanes; ++lane) column_pass(y0 + lane, padded[lane]);
    // Straight into dst when overwriting; lanes past the block go to scratch rows.
    std::uint8_t* targets[kVhgwLanes];
    for (int lane = 0; lane < kVhgwLanes; ++lane) {
      targets[lane] = overwrite && lane < lanes ? dst.row(y0 + lane) : out[lane];
    }
    detail::row_vhgw<Op>(padded, targets, width, channels, r.width, padded_pixels, scratch);
    for (int lane = 0; lane < lanes && !overwrite; ++lane) {
      combine<Op>(dst.row(y0 + lane), out[lane], dst.row(y0 + lane), samples, loops);
    }
    for (int lane = 0; lane < lanes && last; ++lane) detail::copy_alpha(src, dst, y0 + lane, loops);
  }
}

template <typename Op>
void decomposed_rows(const ConstImageView& src, const ImageView& dst, RowRange rows,
                     const StructuringElement& se, MorphMethod method, Loops loops) {
  const std::vector<MorphRect> rects = decompose(se);
  for (std::size_t i = 0; i < rects.size(); ++i) {
    rect_pass<Op>(src, dst, rows, rects[i], method, i == 0, i + 1 == rects.size(), loops);
  }
}

template <typename Op>
void morphology_with(const ConstImageView& src, const ImageView& dst, RowRange rows,
                     const StructuringElement& se, MorphMethod method, Loops loops) {
  if (method == MorphMethod::naive) {
    naive_rows<Op>(src, dst, rows, se);
  } else {
    decomposed_rows<Op>(src, dst, rows, se, method, loops);
  }
}

}  // namespace

void morphology_rows(const ConstImageView& src, const ImageView& dst, RowRange rows,
                     const StructuringElement& se, MorphOp op, MorphMethod method, Loops loops) {
  if (rows.empty()) return;
  if (op == MorphOp::erode) {
    morphology_with<MinOp>(src, dst, rows, se, method, loops);
  } else {
    morphology_with<MaxOp>(src, dst, rows, se, method, loops);
  }
}

void morphology_rows(const ConstImageView& src, const ImageView& dst, RowRange rows,
                     const StructuringElement& se, MorphOp op) {
  morphology_rows(src, dst, rows, se, op, MorphMethod::fastest);
}

}  // namespace parfilter::kernels
