"""A numpy multi-lane highway: IDM traffic, an ego kinematic bicycle, 32x32 ego-centred occupancy frames.

Traffic follows the Intelligent Driver Model with the constants highway-env documents for its
``IDMVehicle`` (``ACC_MAX = 6``, ``COMFORT_ACC_MAX = 3``, ``COMFORT_ACC_MIN = -5`` m/s²,
``DISTANCE_WANTED = 5 + LENGTH`` m, ``TIME_WANTED = 1.5`` s, ``DELTA = 4``; vehicles 5 m x 2 m), in
its form ``a = a_max (1 - (v/v0)^delta) - a_max (d*/d)^2`` with ``d* = d0 + v tau + v dv / (2 sqrt(a_max b))``
and ``d`` the centre-to-centre gap. Other cars keep their lanes (no MOBIL: ours, to keep the frames
readable). The ego is highway-env's kinematic bicycle (``beta = arctan(tan(delta)/2)``, heading rate
``v sin(beta) / (L/2)``). Its recorded actions are a heading command and an acceleration: a noisy
lane-keeping / lane-changing policy sets the heading command (clipped to ±0.12 rad) and a steering
controller turns it into the wheel angle that closes 80% of the heading error per frame, as
highway-env's ``ControlledVehicle`` goes from a heading command to a steering angle. (Ours: with the
wheel angle itself as the action its effect on the next frame is second order, ~0.05 m, and tiny
models learn to ignore it.)

A frame has two channels on a 32 x 32 grid centred on the ego and aligned with the road (not rotated
with the ego's heading): channel 0 is the occupancy of the other vehicles, channel 1 the drivable
road. Rows run from 32 m ahead (row 0) to 32 m behind, 2 m each; columns span 28 m across, 0.875 m
each. Cells hold the exact area fraction a box covers (anti-aliased), so sub-cell motion is visible.
Because the road fills every row alike, its centroid column gives the ego's lateral position
to within a centimetre (:func:`lateral_position`): the detector the steering evaluation applies to generated frames.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.common.config import Config, param
from core.common.progress import report
from core.common.seeding import check_seed, derive_rng

# highway-env IDMVehicle / Vehicle constants
LENGTH, WIDTH = 5.0, 2.0
ACC_MAX, COMFORT_ACC_MAX, COMFORT_ACC_MIN = 6.0, 3.0, -5.0
DISTANCE_WANTED, TIME_WANTED, DELTA = 5.0 + LENGTH, 1.5, 4.0

LANE_WIDTH = 4.0
GRID = 32
CELL_LONG, CELL_LAT = 2.0, 0.875
HALF_LONG, HALF_LAT = GRID * CELL_LONG / 2, GRID * CELL_LAT / 2
STEER_SCALE, ACCEL_SCALE = 0.12, 6.0      # actions are stored divided by these (so they lie in about [-1, 1])
GAP_CLIP = 30.0


@dataclass(frozen=True)
class SimConfig(Config):
    """The highway and its episodes."""

    n_lanes: int = param(3, low=2, high=4, integer=True, doc="number of lanes (4 m wide)")
    n_vehicles: int = param(24, low=0, high=40, integer=True, doc="other vehicles placed around the ego")
    length: int = param(49, low=8, high=200, integer=True, doc="frames per episode")
    dt: float = param(0.25, low=0.05, high=1.0, doc="seconds between frames")
    lane_change_rate: float = param(0.1, low=0.0, high=1.0, doc="chance per frame that the ego picks a new target lane")
    steer_noise: float = param(0.02, low=0.0, high=0.1, doc="std of the noise on the heading command (rad, AR(1))")
    accel_noise: float = param(0.6, low=0.0, high=3.0, doc="std of the ego's acceleration noise (m/s², AR(1))")


@dataclass
class DrivingData:
    """Seeded episodes: frames, actions and the scene variables the probes predict.

    Attributes
    ----------
    frames : numpy.ndarray
        (episodes, length, 2, 32, 32) float32 in [0, 1]: vehicle occupancy and road.
    actions : numpy.ndarray
        (episodes, length, 2) float32: heading command / 0.12 rad and acceleration / 6 m/s² applied after
        each frame (``actions[:, t]`` takes frame t to frame t + 1).
    speed : numpy.ndarray
        (episodes, length) ego speed in m/s.
    lane : numpy.ndarray
        (episodes, length) index of the lane the ego's centre lies in.
    gap : numpy.ndarray
        (episodes, length) bumper gap to the next vehicle ahead in the ego's lane, m, clipped to 30 (the frame shows 32 m ahead).
    ego_y : numpy.ndarray
        (episodes, length) ego lateral position, m (0 = the road's left edge).
    seed : int
        The seed the episodes were drawn with.
    """

    frames: np.ndarray
    actions: np.ndarray
    speed: np.ndarray
    lane: np.ndarray
    gap: np.ndarray
    ego_y: np.ndarray
    seed: int


def idm_acceleration(v, v0, gap_centre, dv):
    """IDM acceleration (highway-env's form): free road term minus interaction term, clipped to ±ACC_MAX."""
    acc = COMFORT_ACC_MAX * (1.0 - np.power(np.maximum(v, 0.0) / v0, DELTA))
    ab = -COMFORT_ACC_MAX * COMFORT_ACC_MIN
    d_star = DISTANCE_WANTED + v * TIME_WANTED + v * dv / (2.0 * np.sqrt(ab))
    interact = np.where(np.isfinite(gap_centre), COMFORT_ACC_MAX * (d_star / np.maximum(gap_centre, 1e-2)) ** 2, 0.0)
    return np.clip(acc - interact, -ACC_MAX, ACC_MAX)


def _leaders(x, lane, xq, lane_q):
    """For each query (xq, lane_q): centre gap to and speed index of the nearest vehicle ahead in that lane."""
    same = lane[None, :] == lane_q[:, None]
    ahead = x[None, :] - xq[:, None]
    ahead = np.where(same & (ahead > 1e-6), ahead, np.inf)
    idx = np.argmin(ahead, axis=1)
    return ahead[np.arange(len(xq)), idx], idx


def _coverage(lo, hi, edges):
    """Fraction of each cell [edges[i], edges[i+1]] covered by each interval [lo, hi]: (n_boxes, n_cells)."""
    a = np.maximum(lo[:, None], edges[None, :-1])
    b = np.minimum(hi[:, None], edges[None, 1:])
    return np.clip(b - a, 0.0, None) / (edges[1] - edges[0])


LONG_EDGES = HALF_LONG - CELL_LONG * np.arange(GRID + 1)      # row i spans [LONG_EDGES[i+1], LONG_EDGES[i]]
LAT_EDGES = -HALF_LAT + CELL_LAT * np.arange(GRID + 1)


def render_frame(dx, dy, ego_y, n_lanes) -> np.ndarray:
    """One (2, 32, 32) frame from other vehicles' offsets ``dx`` (ahead > 0), ``dy`` and the ego's y."""
    frame = np.zeros((2, GRID, GRID), dtype=np.float32)
    if len(dx):
        rows = _coverage(-(dx + LENGTH / 2), -(dx - LENGTH / 2), -LONG_EDGES)   # flip: rows increase backwards
        cols = _coverage(dy - WIDTH / 2, dy + WIDTH / 2, LAT_EDGES)
        frame[0] = np.clip(np.einsum("ni,nj->ij", rows, cols), 0.0, 1.0)
    road = _coverage(np.array([-ego_y]), np.array([n_lanes * LANE_WIDTH - ego_y]), LAT_EDGES)[0]
    frame[1] = road[None, :]
    return frame


def simulate_episode(config: SimConfig, rng: np.random.Generator, steer_override=None, start: int = 0):
    """One episode; ``steer_override`` (rad) replaces the ego's steering from frame ``start`` on."""
    n, L, dt = config.n_vehicles, config.length, config.dt
    width = config.n_lanes * LANE_WIDTH
    lane = rng.integers(0, config.n_lanes, n)
    x = rng.uniform(-150.0, 250.0, n)
    v0 = rng.uniform(20.0, 30.0, n)
    v = v0 * rng.uniform(0.85, 1.0, n)
    order = np.lexsort((x, lane))          # push cars in a lane at least 15 m apart
    for k in range(1, n):
        i, j = order[k], order[k - 1]
        if lane[i] == lane[j] and x[i] - x[j] < 15.0:
            x[i] = x[j] + 15.0
    ego_lane = int(rng.integers(0, config.n_lanes))
    keep = ~((lane == ego_lane) & (np.abs(x) < 15.0))
    lane, x, v0, v = lane[keep], x[keep], v0[keep], v[keep]
    ex, ey, psi = 0.0, (ego_lane + 0.5) * LANE_WIDTH + rng.normal(0, 0.3), rng.normal(0, 0.01)
    ev0 = rng.uniform(20.0, 30.0)
    ev = ev0 * rng.uniform(0.85, 1.0)
    target = ego_lane
    steer_n = accel_n = 0.0
    out = {k: [] for k in ("frames", "actions", "speed", "lane", "gap", "ego_y")}
    for t in range(L):
        ego_lane_now = int(np.clip(ey // LANE_WIDTH, 0, config.n_lanes - 1))
        gap_c, idx = _leaders(x, lane, np.array([ex]), np.array([ego_lane_now]))
        out["frames"].append(render_frame(x - ex, (lane + 0.5) * LANE_WIDTH - ey, ey, config.n_lanes))
        out["speed"].append(ev)
        out["lane"].append(ego_lane_now)
        out["gap"].append(min(float(gap_c[0]) - LENGTH, GAP_CLIP))
        out["ego_y"].append(ey)
        # ego policy: lane choice, heading command, steering (applied value is the action)
        if rng.random() < config.lane_change_rate:   # a new target lane, if its gaps are safe (MOBIL's safety test, simplified)
            cand = int(np.clip(target + rng.choice((-1, 1)), 0, config.n_lanes - 1))
            rel = x[lane == cand] - ex
            if not np.any((rel > -12.0) & (rel < 20.0)):
                target = cand
        watch = np.array([ego_lane_now, int(np.clip(round(ey / LANE_WIDTH - 0.5), 0, config.n_lanes - 1)), target])
        gaps_w, idx_w = _leaders(x, lane, np.full(3, ex), watch)
        k = int(np.argmin(gaps_w))
        gap_c, idx = gaps_w[k:k + 1], idx_w[k:k + 1]
        y_target = (target + 0.5) * LANE_WIDTH
        psi_cmd = np.clip(-0.8 * (ey - y_target) / max(ev, 1.0), -0.1, 0.1)
        steer_n = 0.8 * steer_n + config.steer_noise * np.sqrt(1 - 0.8 ** 2) * rng.standard_normal()
        accel_n = 0.8 * accel_n + config.accel_noise * np.sqrt(1 - 0.8 ** 2) * rng.standard_normal()
        steer = float(np.clip(psi_cmd + steer_n, -STEER_SCALE, STEER_SCALE))
        lead_v = v[idx[0]] if np.isfinite(gap_c[0]) else ev
        accel = float(np.clip(idm_acceleration(ev, ev0, gap_c[0], ev - lead_v) + accel_n, -ACCEL_SCALE, ACCEL_SCALE))
        if steer_override is not None and t >= start:
            steer, accel = float(steer_override), 0.0
        out["actions"].append((steer / STEER_SCALE, accel / ACCEL_SCALE))
        # traffic: IDM on each lane's leader, then the ego's kinematic bicycle
        gaps, lead = _leaders(x, lane, x, lane)
        dv = v - np.where(np.isfinite(gaps), v[lead], v)
        ego_ahead = (np.clip(ey // LANE_WIDTH, 0, config.n_lanes - 1) == lane) & (ex > x)
        ego_gap = np.where(ego_ahead, ex - x, np.inf)
        use_ego = ego_gap < gaps
        gaps = np.where(use_ego, ego_gap, gaps)
        dv = np.where(use_ego, v - ev, dv)
        a = idm_acceleration(v, v0, gaps, dv)
        x = x + v * dt
        v = np.maximum(v + a * dt, 0.0)
        # the steering controller turns the heading command into a wheel angle (80% of the error per frame)
        sin_beta = np.clip(0.8 * (steer - psi) * (LENGTH / 2) / max(ev * dt, 1e-3), -0.5, 0.5)
        beta = np.arcsin(sin_beta)
        ex += ev * np.cos(psi + beta) * dt
        ey += ev * np.sin(psi + beta) * dt
        psi += ev * np.sin(beta) / (LENGTH / 2) * dt
        ev = max(ev + accel * dt, 0.0)
        ey = float(np.clip(ey, -LANE_WIDTH, width + LANE_WIDTH))
    return {k: np.asarray(val) for k, val in out.items()}


def make_dataset(config: SimConfig, n_episodes: int, seed: int, progress=None) -> DrivingData:
    """Seeded episodes of the highway (episode ``i`` draws from ``derive_rng(seed, "episode", i)``).

    Parameters
    ----------
    config : SimConfig
        The highway and the episode length.
    n_episodes : int
        How many episodes, 1 to 5000.
    seed : int
        The dataset seed.
    progress : callable or None
        Called after each episode; returning False stops early (the episodes so far are returned).

    Returns
    -------
    DrivingData
        Frames, actions and scene variables.

    Examples
    --------
    >>> d = make_dataset(SimConfig(length=8), 2, seed=0)
    >>> d.frames.shape, d.actions.shape, bool(d.frames.max() <= 1.0)
    ((2, 8, 2, 32, 32), (2, 8, 2), True)
    """
    from core.common.config import check_range

    check_range("n_episodes", n_episodes, 1, 5000, integer=True)
    seed = check_seed(seed)
    eps = []
    for i in range(n_episodes):
        eps.append(simulate_episode(config, derive_rng(seed, "episode", i)))
        if not report(progress, i + 1, n_episodes, {}):
            break
    stack = {k: np.stack([e[k] for e in eps]) for k in eps[0]}
    return DrivingData(frames=stack["frames"].astype(np.float32), actions=stack["actions"].astype(np.float32),
                       speed=stack["speed"].astype(np.float64), lane=stack["lane"].astype(np.int64),
                       gap=stack["gap"].astype(np.float64), ego_y=stack["ego_y"].astype(np.float64), seed=seed)


def counterfactual_truth(config: SimConfig, seed: int, episodes, start: int, steers, horizon: int) -> np.ndarray:
    """The simulator's own frames when the ego holds each steering angle from frame ``start`` on.

    Returns (len(episodes), len(steers), horizon + 1, 2, 32, 32): frame ``start`` then ``horizon`` more,
    with the acceleration held at zero, episode ``i`` replayed from ``derive_rng(seed, "episode", i)``.
    """
    cfg = config.replace(length=start + horizon + 1)
    out = np.zeros((len(episodes), len(steers), horizon + 1, 2, GRID, GRID), dtype=np.float32)
    for a, i in enumerate(episodes):
        for b, s in enumerate(steers):
            ep = simulate_episode(cfg, derive_rng(seed, "episode", int(i)), steer_override=s, start=start)
            out[a, b] = ep["frames"][start:]
    return out


def lateral_position(frames: np.ndarray, n_lanes: int = 3) -> np.ndarray:
    """The ego's lateral position (m) read off the road channel of frames ``(..., 2, H, W)``.

    The road's centroid column, ``sum_j c_j r_j / sum_j r_j`` (values clipped to [0, 1] and averaged
    over rows), lies at ``width/2 - y`` from the ego; within 1 cm on rendered frames, a detector on generated ones.

    Parameters
    ----------
    frames : numpy.ndarray
        Frames with the channel axis third from last; any resolution whose columns span the same 28 m.
    n_lanes : int
        Lanes of the road (its width is 4 m each).

    Returns
    -------
    numpy.ndarray
        The lateral positions, shape ``frames.shape[:-3]``.

    Examples
    --------
    >>> f = render_frame(np.zeros(0), np.zeros(0), 5.0, 3)
    >>> round(float(lateral_position(f)), 1)
    5.0
    """
    road = np.clip(np.asarray(frames, dtype=np.float64)[..., 1, :, :], 0.0, 1.0).mean(axis=-2)
    w = road.shape[-1]
    centres = -HALF_LAT + (np.arange(w) + 0.5) * (2 * HALF_LAT / w)
    centroid = (road * centres).sum(-1) / np.maximum(road.sum(-1), 1e-6)
    return n_lanes * LANE_WIDTH / 2 - centroid


def coarse_frames(frames: np.ndarray, factor: int = 4) -> np.ndarray:
    """Average-pool the last two axes by ``factor``: the high level's coarse scene structure.

    Parameters
    ----------
    frames : numpy.ndarray
        (..., H, W) with H and W divisible by ``factor``.
    factor : int
        The pooling window.

    Returns
    -------
    numpy.ndarray
        (..., H / factor, W / factor).

    Examples
    --------
    >>> coarse_frames(np.ones((2, 32, 32))).shape
    (2, 8, 8)
    """
    *lead, h, w = frames.shape
    return frames.reshape(*lead, h // factor, factor, w // factor, factor).mean(axis=(-3, -1))
