# Reads a gemm-ab.mjs log and fails unless, within each shape, every variant's hash of all of C
# (the last field of its line) equals the first variant's: the A/B scripts' bit-identity check.
#   awk -f bench/experiments/gemm_ab/same_bits.awk LOG
/^[0-9]+x/ { shape = $1; first = "" }
/ sum / {
    s = $NF
    if (first == "") first = s
    else if (s != first) { print "BIT MISMATCH (hash of C) " shape ": " $1 " " s " vs " first; bad = 1 }
}
END { if (bad) exit 1; print "bits of C: every variant matches the first on every shape" }
