"""Error bounds for the Fusion tasks whose outputs come out of accumulations beyond a plain sum: means of
computed terms, standard deviations, normalizations (layer/group/batch norm), dot products and cosines, and
log-softmax based losses. Each function returns B (float64, broadcastable to the output) for
Tolerance(scale="bound").

Every bound is first-order error propagation with the same constants as dataset/bounds.py: a sum of n terms
in fp32 contributes C·ε·√n·‖terms‖₂ (any order: sequential, blocked, tree, atomics), an elementwise operation
contributes a few ε relative to its operands, and transcendental functions (exp, log, erf, tanh) are allowed
k·ε relative error plus, for exp, the rounding of its argument (ε·|x|). Inputs that are themselves computed
(GELU(x), x + α·y, a softmax) carry their own elementwise error `dx`. The bounds are loose by design (a few
times what honest fp32 kernels show) and orders of magnitude below a real bug.
"""

from __future__ import annotations

import math

import torch

from kernelbenchx.dataset.bounds import C, EPS

E32 = EPS[torch.float32]
K_FN = 4.0  # relative error allowed to one transcendental evaluation (libdevice ≤ 2 ulp, fast paths a few)

STD_TEXT = ("B propagates fp32 rounding through the two-pass standard deviation: with d = g − mean(g) over the "
            "n reduced elements and ε = 2⁻²³, the sum of squares may be off by δS = 2ε√n‖d²‖₂ + 2Σ|d|·δg + "
            "n·δμ² (δμ = 2ε‖g‖₂/√n, δg = 4ε|g| the error of computing g), and B = min(δS/(2·D·std), √(δS/D)) "
            "with D = max(0, n − correction)")
NORM_TEXT = ("B propagates fp32 rounding through the normalization: with μ, σ² the statistics over the n "
             "normalized elements, d = m − μ, r = 1/√(σ² + eps) and ε = 2⁻²³, B = |w|·r·(δm + δμ + ε(|m| + |μ|) "
             "+ |d|·δσ²/(2(σ² + eps))) + 4ε(|w·d·r| + |b|), where δμ = 2ε‖m‖₂/√n + mean(δm), "
             "δσ² = (2ε√n‖d²‖₂ + 2Σ|d|(δm + ε|d|))/n + δμ², and δm is the error of computing the normalized "
             "input m (a few ε·|m|)")
LOSS_TEXT = ("B propagates fp32 rounding through the stable log-sum-exp and the reduction: with p = softmax, "
             "lse = max + log Σ exp(x − max) over the n classes and ε = 2⁻²³, each log-probability may be off by "
             "δlp = δx + Σ p·δx + ε(4 + Σ p|x − max|) + 2ε√n + ε(|max| + 2|lse| + |x|), each per-element loss by "
             "the weighted sum of its terms' δlp plus 2ε√n‖terms‖₂, and a sum or mean over N elements adds "
             "2ε√N‖losses‖₂ (divided by the mean's denominator)")


def reduced_dims(x: torch.Tensor, dim) -> tuple[int, ...]:
    if dim is None:
        return tuple(range(x.dim()))
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    return tuple(d % max(x.dim(), 1) for d in dims)


def reduced_count(x: torch.Tensor, dims: tuple[int, ...]) -> int:
    return math.prod(x.shape[d] for d in dims) if x.dim() else 1


def _sum(x: torch.Tensor, dims: tuple[int, ...], keepdim: bool) -> torch.Tensor:
    return x.sum(dim=dims, keepdim=keepdim) if x.dim() else x


def sum_err(terms: torch.Tensor, dims: tuple[int, ...], keepdim: bool = False,
            eps: float = E32) -> torch.Tensor:
    """Rounding error of summing `terms` (float64) over `dims` in a precision with unit roundoff `eps`."""
    n = reduced_count(terms, dims)
    return C * eps * math.sqrt(max(n, 1)) * _sum(terms.pow(2), dims, keepdim).sqrt()


def mean_bound(s: torch.Tensor, ds: torch.Tensor | float, dim=None, keepdim: bool = False,
               acc: torch.dtype = torch.float32) -> torch.Tensor:
    """B for mean(s, dim) where each term s (exact, float64) was computed with error up to ds (elementwise);
    the terms' rounding errors add up like a random walk (C·‖ds‖₂), as the accumulation's do."""
    s = s.double()
    dims = reduced_dims(s, dim)
    n = max(reduced_count(s, dims), 1)
    ds = torch.as_tensor(ds, dtype=torch.float64).expand_as(s)
    return (sum_err(s, dims, keepdim, EPS[acc]) + C * _sum(ds.pow(2), dims, keepdim).sqrt()) / n


def std_bound(g: torch.Tensor, dg: torch.Tensor | float, dim=None, keepdim: bool = False,
              correction: float = 1) -> torch.Tensor:
    """B for std(g, dim, correction) (two-pass or Welford in fp32), g computed with elementwise error dg."""
    g = g.double()
    dims = reduced_dims(g, dim)
    n = reduced_count(g, dims)
    dg = torch.as_tensor(dg, dtype=torch.float64).expand_as(g)
    mu = g.mean(dim=dims, keepdim=True) if g.dim() else g
    d = g - mu
    dmu = C * E32 * _sum(g.pow(2), dims, True).sqrt() / math.sqrt(max(n, 1)) + dg.mean(dim=dims, keepdim=True)
    ds = (sum_err(d.pow(2), dims, True) + 2 * _sum(d.abs() * (dg + E32 * d.abs()), dims, True)
          + n * dmu.pow(2))
    denom = max(0.0, n - correction)
    if denom == 0:
        out = torch.zeros_like(ds)
    else:
        std = (_sum(d.pow(2), dims, True) / denom).sqrt()
        out = torch.minimum(ds / denom / (2 * std).clamp_min(1e-300), (ds / denom).sqrt())
    if not keepdim and g.dim():
        out = out.squeeze(dims) if len(dims) else out
    return out


def moment_errors(m: torch.Tensor, dm: torch.Tensor | float, dims: tuple[int, ...]):
    """(μ, σ², δμ, δσ²) over `dims` (kept) for statistics computed in fp32 from m (exact, float64) carrying
    elementwise error dm: the mean's accumulation plus dm, and the biased variance's (two-pass or merged)."""
    m = m.double()
    dm = torch.as_tensor(dm, dtype=torch.float64).expand_as(m)
    n = max(reduced_count(m, dims), 1)
    mu = m.mean(dim=dims, keepdim=True)
    d = m - mu
    var = d.pow(2).mean(dim=dims, keepdim=True)
    dmu = C * E32 * m.pow(2).sum(dim=dims, keepdim=True).sqrt() / math.sqrt(n) + dm.mean(dim=dims, keepdim=True)
    dvar = ((sum_err(d.pow(2), dims, True) + 2 * (d.abs() * (dm + E32 * d.abs())).sum(dim=dims, keepdim=True)) / n
            + dmu.pow(2))
    return mu, var, dmu, dvar


def normalized_bound(m: torch.Tensor, dm: torch.Tensor | float, dims: tuple[int, ...], eps: float,
                     weight: torch.Tensor | None = None, bias: torch.Tensor | None = None) -> torch.Tensor:
    """B for (m − μ)/√(σ² + eps)·weight + bias with μ, σ² (biased) over `dims` of m (exact, float64) computed
    in fp32 from m carrying elementwise error dm. weight and bias must broadcast against m."""
    m = m.double()
    dm = torch.as_tensor(dm, dtype=torch.float64).expand_as(m)
    mu, var, dmu, dvar = moment_errors(m, dm, dims)
    d = m - mu
    r = (var + eps).rsqrt()
    w = torch.ones((), dtype=torch.float64) if weight is None else weight.double()
    b = torch.zeros((), dtype=torch.float64) if bias is None else bias.double()
    core = dm + dmu + E32 * (m.abs() + mu.abs()) + d.abs() * dvar / (2 * (var + eps))
    return w.abs() * r * core + 4 * E32 * ((w * d * r).abs() + b.abs())


def log_softmax_err(x: torch.Tensor, dim: int, dx: torch.Tensor | float = 0.0) -> tuple[torch.Tensor, torch.Tensor]:
    """(lp, δlp): log_softmax(x, dim) in float64 and the error bound of computing it in fp32 (stable form) from
    x carrying elementwise error dx. Non-finite entries get bound 0 (their values are compared exactly)."""
    x = x.double()
    dx = torch.as_tensor(dx, dtype=torch.float64).expand_as(x)
    n = x.shape[dim]
    mx = x.amax(dim=dim, keepdim=True)
    mx = torch.where(torch.isfinite(mx), mx, torch.zeros_like(mx))
    e = (x - mx).exp()
    s = e.sum(dim=dim, keepdim=True)
    p = e / s
    lse = mx + s.log()
    lp = x - lse
    spread = torch.where(p > 0, p * (x - mx).abs(), torch.zeros_like(p)).sum(dim=dim, keepdim=True)
    dlse = ((p * dx).sum(dim=dim, keepdim=True) + E32 * (K_FN + spread) + C * E32 * math.sqrt(n)
            + E32 * (mx.abs() + lse.abs()))
    dlp = dx + dlse + E32 * (x.abs() + lse.abs() + lp.abs())
    finite = torch.isfinite(lp) & torch.isfinite(dlp)
    return lp, torch.where(finite, dlp, torch.zeros_like(dlp))


def reduce_loss_bound(loss: torch.Tensor, dloss: torch.Tensor, reduction: str,
                      denominator: torch.Tensor | float | None = None) -> torch.Tensor:
    """B for the 'none' / 'sum' / 'mean' reduction of per-element losses (float64) with errors dloss. The mean
    divides by `denominator` (default: the element count)."""
    if reduction == "none":
        return dloss
    flat, dflat = loss.reshape(-1).double(), dloss.reshape(-1).double()
    total = dflat.sum() + sum_err(flat, (0,))
    if reduction == "sum":
        return total
    den = torch.as_tensor(flat.numel() if denominator is None else denominator, dtype=torch.float64)
    return total / den + (flat.sum() / den).abs() * 4 * E32


def cross_entropy_bound(lp: torch.Tensor, dlp: torch.Tensor, target: torch.Tensor, weight: torch.Tensor | None,
                        ignore_index: int, reduction: str, label_smoothing: float) -> torch.Tensor:
    """B for torch's cross_entropy given log-probabilities lp (classes along dim 1) with errors dlp."""
    c = lp.shape[1]
    lp, dlp = lp.double(), dlp.double()
    shape = [1] * lp.dim()
    shape[1] = c
    w = torch.ones(c, dtype=torch.float64) if weight is None else weight.double()
    wb = w.reshape(shape)
    eps_s = float(label_smoothing)
    if target.is_floating_point():  # class probabilities
        t = target.double() * (1 - eps_s) + eps_s / c
        terms = wb * t * lp
        loss = -terms.sum(dim=1)
        dl = (wb * t).abs().mul(dlp).sum(dim=1) + sum_err(terms, (1,)) + 2 * E32 * terms.abs().sum(dim=1)
        return reduce_loss_bound(loss, dl, reduction)
    valid = target != ignore_index
    y = torch.where(valid, target, torch.zeros_like(target)).long()
    picked = lp.gather(1, y.unsqueeze(1)).squeeze(1)
    dpicked = dlp.gather(1, y.unsqueeze(1)).squeeze(1)
    wy = torch.where(valid, w[y], torch.zeros_like(w[y]))
    loss = -(1 - eps_s) * wy * picked
    dl = (1 - eps_s) * wy.abs() * dpicked
    if eps_s:  # only with label smoothing do the other classes' log-probabilities enter
        smooth_terms = wb * lp
        loss = loss - (eps_s / c) * smooth_terms.sum(dim=1) * valid
        dl = dl + (eps_s / c) * valid * ((wb.abs() * dlp).sum(dim=1) + sum_err(smooth_terms, (1,))
                                         + 2 * E32 * smooth_terms.abs().sum(dim=1))
    dl = dl + 4 * E32 * loss.abs()
    dl = torch.where(valid, dl, torch.zeros_like(dl))
    return reduce_loss_bound(loss, dl, reduction, wy.sum() if reduction == "mean" else None)


def cosine_err(x1: torch.Tensor, x2: torch.Tensor, dim: int, eps_norm: float) -> tuple[torch.Tensor, torch.Tensor]:
    """(cos, δcos) for Σ x1·x2 / (max(‖x1‖, eps)·max(‖x2‖, eps)) over `dim`, computed in fp32."""
    a, b = x1.double(), x2.double()
    n = a.shape[dim]
    n1 = a.pow(2).sum(dim=dim).sqrt()
    n2 = b.pow(2).sum(dim=dim).sqrt()
    d1, d2 = n1.clamp_min(eps_norm), n2.clamp_min(eps_norm)
    prod = a * b
    cos = prod.sum(dim=dim) / (d1 * d2)
    rel1 = (C * E32 * math.sqrt(n) * a.pow(4).sum(dim=dim).sqrt() / (2 * d1.pow(2)) + 2 * E32)
    rel2 = (C * E32 * math.sqrt(n) * b.pow(4).sum(dim=dim).sqrt() / (2 * d2.pow(2)) + 2 * E32)
    dcos = (C * E32 * math.sqrt(n) * prod.pow(2).sum(dim=dim).sqrt() / (d1 * d2)
            + (rel1 + rel2 + 4 * E32) * prod.abs().sum(dim=dim) / (d1 * d2))
    return cos, dcos
