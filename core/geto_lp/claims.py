"""The GETO-LP paper's headline claims, checked by ``bench/geto_lp.py``."""

from core.common.claims import Claim

CLAIMS = (
    Claim("exact",
          "The GETO-LP formulation is exact: its solution gives the barycenter and the optimal plans to each "
          "input without further optimisation.",
          "Objective against POT's classical LP (ot.lp.barycenter), and every recovered plan rescored with "
          "ot.emd2, on digit barycenters up to 24×24 and dense random images up to 32×32.",
          "POT's classical LP and ot.emd2; the entropic solvers as a control that is not exact."),
    Claim("variable_count",
          "It needs O(d M N^(1+1/d)) variables instead of the classical O(M N^2).",
          "Variables of the built LP against M·N·Σnₖ + N and the classical M·N² + N, at 16² to 64².",
          "The classical LP's count, and POT's LP's own variable count."),
    Claim("memory_and_speed",
          "It is a memory-efficient alternative to the classical LP.",
          "Resident-memory rise and wall time of GETO-LP against POT's classical LP at 16² and 24².",
          "POT's classical LP in the same run."),
    Claim("beats_entropic",
          "Compared with entropic-regularisation solvers it gives the exact optimum where they are biased.",
          "Relative objective gap of convolutional and dense Sinkhorn barycenters (reg 0.01 and 0.002) to the "
          "exact optimum, each scored with ot.emd2.",
          "POT's entropic barycenter solvers."),
    Claim("applications",
          "It serves real applications: colour-palette manipulation and medical (volume) data averaging.",
          "A measured criterion for the palette transfer and the averaged volumes.",
          "None yet: the page shows both applications, the bench measures neither."),
)
