#!/bin/sh
# Stands in for `memfmt reorder --mode=C` on a batch where memfmt differs from the
# reference once: cmake/check_benchdnn_batches.cmake must fail on it, naming the problem.
cat <<'OUT'
[1] --sdt=f32 --ddt=s8 --stag=abx --dtag=axb 2x3
    src   f32::blocked:ab:f0  (24 bytes)
    dst   s8::blocked:ba:f0  (6 bytes)
    attr  dst = src
    check MISMATCH: memfmt differs from the reference in 1 element; oneDNN 2.6.3 (jit:uni) differs from it in 0 elements
          first at (1,2): src 3.5, dst before 0; memfmt 3, reference 4, oneDNN 4
[2] --sdt=f32 --ddt=f32 --stag=abx --dtag=axb 2x3
    src   f32::blocked:ab:f0  (24 bytes)
    dst   f32::blocked:ba:f0  (24 bytes)
    attr  dst = src
    check memfmt == oneDNN 2.6.3 (jit:uni) bit for bit, 24 bytes
2 problems; 2 checked: 1 equal to oneDNN, 0 equal to the reference where oneDNN is wrong (0 known oneDNN 2.6 errors), 0 equal to the reference where oneDNN cannot run them, 1 mismatch (memfmt differs from the reference); 2 planned, 0 skipped, 0 rejected by memfmt
OUT
exit 1
