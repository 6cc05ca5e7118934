"""Linear-algebra judging and inputs: decompositions are checked by reconstruction error and factor invariants.

Factors of QR, SVD, LU, eig and LDLᵀ are not unique (signs, phases, order, pivot choices), so they are never
compared elementwise. A factorization passes when (a) every output has the reference's type, shape and dtype and
is finite, (b) the factors have their structural invariants (exact zeros of triangular factors, unit diagonals,
orthonormal columns, valid permutations, sorted non-negative singular values, unit-norm eigenvectors), and
(c) the factors rebuild the input: ‖rebuilt − A‖_F ≤ tol·‖A‖_F. Unique quantities (singular values, |diag R|,
the Cholesky factor, solutions of well-conditioned systems, determinants) are also compared with the reference.

Tolerances come from the dtype and the matrix size n (its largest dimension): tol = 64·√n·ε, ε the unit
roundoff (1.19e-7 for float32, 2.22e-16 for float64), times a small factor where conditioning enters.
All norms are computed in float64 (complex128) on the device of the input matrix.

The package's modules (every name is re-exported here, so `invariants.X` keeps working):

- `tolerances`: the tolerance formula, its contract text, the call's matrix size and arguments;
- `problems`: structural checks of single outputs, each returning None or a one-line reason;
- `checks`: the tasks' checks (`close_check` for unique results; Cholesky, LU, QR, SVD, eig and LDLᵀ checks);
- `inputs`: input builders whose results are stable, and `STRUCTURED_LAYOUTS`;
- `flops`: FLOP counts of the standard dense algorithms.
"""

from __future__ import annotations

from kernelbenchx.dataset.invariants.checks import (
    SVD_FACTOR, Check, cholesky_check, close_check, eig_check, ldl_check, ldl_rebuild, lu_check, multiset_problem,
    pivot_blocks, qr_check, singular_values_problem, svd_check,
)
from kernelbenchx.dataset.invariants.flops import batch_count, lu_flops, qr_flops, svd_flops
from kernelbenchx.dataset.invariants.inputs import (
    STRUCTURED_LAYOUTS, cholesky_factor, coin, diagonalizable, gaussian, low_rank_plus_noise, near_identity,
    needs_pivoting, shuffled_rows, spd, spectrum, symmetric_indefinite, tiny_column_block, well_conditioned,
)
from kernelbenchx.dataset.invariants.problems import (
    batch_max, close_problem, orthonormal_problem, permutation_matrix_problem, reconstruction_problem,
    relative_error, sequence_problem, tensor_problem, triangular_problem, wide,
)
from kernelbenchx.dataset.invariants.tolerances import (
    TOL_SCALE, arg, matrix_size, shown_tolerance, tolerance, tolerance_text, unit_roundoff,
)

__all__ = [
    "TOL_SCALE", "arg", "matrix_size", "shown_tolerance", "tolerance", "tolerance_text", "unit_roundoff",
    "batch_max", "close_problem", "orthonormal_problem", "permutation_matrix_problem", "reconstruction_problem",
    "relative_error", "sequence_problem", "tensor_problem", "triangular_problem", "wide", "SVD_FACTOR", "Check",
    "cholesky_check", "close_check", "eig_check", "ldl_check", "ldl_rebuild", "lu_check", "multiset_problem",
    "pivot_blocks", "qr_check", "singular_values_problem", "svd_check", "STRUCTURED_LAYOUTS", "cholesky_factor",
    "coin", "diagonalizable", "gaussian", "low_rank_plus_noise", "near_identity", "needs_pivoting",
    "shuffled_rows", "spd", "spectrum", "symmetric_indefinite", "tiny_column_block", "well_conditioned",
    "batch_count", "lu_flops", "qr_flops", "svd_flops",
]
