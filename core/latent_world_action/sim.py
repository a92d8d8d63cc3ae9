"""A small 2-D interception simulator in numpy, where acting well needs the target's future.

A point agent (speed at most ``agent_speed`` per step) must intercept a target that moves at a
constant hidden velocity and bounces off the walls of the unit square. One frame shows where
things are, not where they go: the velocity is visible only across two frames, and where the
target will be after a bounce is a non-linear function of both. Frames are 32 x 32 with two
channels (agent, target), Gaussian blobs of width ``blob`` pixels. The instruction is a short
token sequence; this simulator has one task, so the instruction is the same for every sample
(our choice: the issue allowed one task, and a second would not change what is measured).

The scripted expert plans an action chunk of ``horizon`` steps from the true state: it finds the
earliest step k <= horizon at which the target's (bounced) future position q_k is reachable and
moves on the straight line to it, arriving at step k, then tracks the target; when no q_k is
reachable it heads for q_horizon at full speed. A chaser that heads for the target's current
position is the control that ignores the future.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.common.config import Config, check_range, param
from core.common.seeding import derive_rng, derive_seed

SIZE = 32
INSTRUCTION = ("intercept", "the", "target")
VOCAB = {word: i for i, word in enumerate(INSTRUCTION)}
WALL = (0.05, 0.95)


@dataclass(frozen=True)
class SimConfig(Config):
    """The interception task: speeds, horizon, episode length and success radius.

    Examples
    --------
    >>> SimConfig().horizon, SimConfig().n_future
    (8, 4)
    >>> SimConfig(horizon=3)
    Traceback (most recent call last):
    ...
    ValueError: horizon: 3 is out of range; allowed integers in [4, 16]
    """

    horizon: int = param(8, low=4, high=16, integer=True, doc="steps in one action chunk (H)")
    n_future: int = param(4, low=1, high=8, integer=True, doc="future frames the posterior branch sees, at "
                          "offsets H/F, 2H/F, ..., H (one per latent slot)")
    steps: int = param(24, low=8, high=128, integer=True, doc="steps per evaluation episode")
    agent_speed: float = param(0.05, low=0.0, high=0.2, low_open=True, doc="largest agent move per step")
    target_speed_low: float = param(0.03, low=0.0, high=0.2, doc="slowest target speed per step")
    target_speed_high: float = param(0.045, low=0.0, high=0.2, doc="fastest target speed per step")
    radius: float = param(0.06, low=0.0, high=0.5, low_open=True, doc="success: agent within this distance")
    blob: float = param(1.2, low=0.3, high=4.0, doc="blob width in pixels in the rendered frames")
    dart_noise: float = param(0.3, low=0.0, high=2.0, doc="noise added to executed expert moves when making "
                              "data (× agent speed), so the data covers recoveries")

    def validate(self) -> None:
        if self.target_speed_high < self.target_speed_low:
            raise ValueError(f"target_speed_high: {self.target_speed_high:g} is below target_speed_low "
                             f"{self.target_speed_low:g}; allowed >= target_speed_low")
        if self.horizon % self.n_future:
            raise ValueError(f"n_future: {self.n_future} does not divide horizon {self.horizon}; allowed divisors "
                             f"of {self.horizon}")


def bounce(pos: np.ndarray, vel: np.ndarray, steps: int) -> tuple[np.ndarray, np.ndarray]:
    """Positions after ``steps`` steps of reflected motion inside the walls (vectorised)."""
    lo, hi = WALL
    width = hi - lo
    raw = pos - lo + steps * vel
    period = np.mod(raw, 2 * width)
    folded = np.where(period > width, 2 * width - period, period)
    sign = np.where(period > width, -1.0, 1.0)
    return lo + folded, vel * sign


def render_frames(agent: np.ndarray, target: np.ndarray, blob: float = 1.2) -> np.ndarray:
    """Frames of shape (n, 2, 32, 32), uint8: channel 0 the agent, channel 1 the target.

    Parameters
    ----------
    agent : ndarray, shape (n, 2)
        Agent positions in the unit square.
    target : ndarray, shape (n, 2)
        Target positions.
    blob : float
        Gaussian blob width in pixels.

    Returns
    -------
    ndarray of uint8, shape (n, 2, 32, 32)
        Intensity 255 at a blob's centre; row index is y, column index x.

    Examples
    --------
    >>> f = render_frames(np.array([[0.5, 0.5]]), np.array([[0.1, 0.9]]))
    >>> f.shape, f.dtype.name, int(f[0, 0].argmax() // 32), int(f[0, 1].argmax() % 32)
    ((1, 2, 32, 32), 'uint8', 15, 3)
    """
    agent = np.atleast_2d(np.asarray(agent, dtype=float))
    target = np.atleast_2d(np.asarray(target, dtype=float))
    if agent.shape != target.shape or agent.shape[-1] != 2:
        raise ValueError(f"target: shape {target.shape} does not match agent {agent.shape}; allowed two (n, 2) arrays")
    grid = (np.arange(SIZE) + 0.5) / SIZE
    out = np.empty((len(agent), 2, SIZE, SIZE), dtype=np.uint8)
    for c, pts in enumerate((agent, target)):
        gx = np.exp(-0.5 * ((grid[None, :] - pts[:, :1]) * SIZE / blob) ** 2)
        gy = np.exp(-0.5 * ((grid[None, :] - pts[:, 1:]) * SIZE / blob) ** 2)
        out[:, c] = np.round(255 * gy[:, :, None] * gx[:, None, :]).astype(np.uint8)
    return out


def expert_chunk(agent: np.ndarray, target: np.ndarray, velocity: np.ndarray, config: SimConfig) -> np.ndarray:
    """The scripted expert's next ``horizon`` moves, shape (n, H, 2), each of length <= agent speed.

    Parameters
    ----------
    agent : ndarray, shape (n, 2)
        Agent positions.
    target : ndarray, shape (n, 2)
        Target positions now.
    velocity : ndarray, shape (n, 2)
        Target velocities now (hidden from the policy).
    config : SimConfig
        Speeds and horizon.

    Returns
    -------
    ndarray, shape (n, H, 2)
        Per-step displacements.

    Examples
    --------
    >>> c = expert_chunk(np.array([[0.2, 0.5]]), np.array([[0.5, 0.5]]), np.array([[-0.03, 0.0]]), SimConfig())
    >>> c.shape, bool(np.all(np.linalg.norm(c, axis=-1) <= 0.05 + 1e-12))
    ((1, 8, 2), True)
    """
    H, vmax = config.horizon, config.agent_speed
    n = len(agent)
    future = np.stack([bounce(target, velocity, k)[0] for k in range(1, H + 1)], axis=1)   # (n, H, 2)
    reach = np.linalg.norm(future - agent[:, None], axis=-1) <= 0.95 * vmax * np.arange(1, H + 1)
    k = np.where(reach.any(1), reach.argmax(1) + 1, H)                                      # 1..H
    aim = future[np.arange(n), k - 1]
    moves = np.empty((n, H, 2))
    pos = agent.copy()
    for j in range(H):
        goal = np.where((j < k)[:, None], aim, future[:, j])
        left = np.maximum(k - j, 1)[:, None]
        step = np.where((j < k)[:, None], (goal - pos) / left, goal - pos)
        norm = np.linalg.norm(step, axis=-1, keepdims=True)
        step = np.where(norm > vmax, step * vmax / np.maximum(norm, 1e-12), step)
        moves[:, j] = step
        pos = np.clip(pos + step, 0.0, 1.0)
    return moves


@dataclass
class Episodes:
    """Random starting states of n episodes (the state the policy does not see).

    Attributes
    ----------
    agent : ndarray, shape (n, 2)
        Agent positions.
    target : ndarray, shape (n, 2)
        Target positions.
    velocity : ndarray, shape (n, 2)
        Target velocities (constant up to wall reflections).
    previous : ndarray, shape (n, 2)
        Target positions one step earlier (for the first observation's previous frame).
    """

    agent: np.ndarray
    target: np.ndarray
    velocity: np.ndarray
    previous: np.ndarray


def start_states(n: int, config: SimConfig, seed: int) -> Episodes:
    """Draw ``n`` starting states: agent and target uniform, target speed and heading random.

    Parameters
    ----------
    n : int
        Number of episodes.
    config : SimConfig
        Speeds.
    seed : int
        Seeds the draw.

    Returns
    -------
    Episodes
        The starting states.

    Examples
    --------
    >>> s = start_states(3, SimConfig(), seed=0)
    >>> s.agent.shape, bool(np.all(np.linalg.norm(s.velocity, axis=1) >= 0.03 - 1e-12))
    ((3, 2), True)
    """
    n = check_range("n", n, low=1, high=1_000_000, integer=True)
    rng = derive_rng(seed, "start")
    agent = rng.uniform(0.1, 0.9, size=(n, 2))
    target = rng.uniform(0.15, 0.85, size=(n, 2))
    speed = rng.uniform(config.target_speed_low, config.target_speed_high, size=n)
    angle = rng.uniform(0, 2 * np.pi, size=n)
    velocity = speed[:, None] * np.stack([np.cos(angle), np.sin(angle)], axis=1)
    previous, _ = bounce(target, -velocity, 1)
    return Episodes(agent, target, velocity, previous)


@dataclass
class Dataset:
    """Expert demonstrations: what the policy sees, what it should do, and the future it cannot see.

    Attributes
    ----------
    context : ndarray of uint8, shape (n, 4, 32, 32)
        Frames t - 1 and t (agent, target channels each).
    instruction : ndarray of int, shape (n, 3)
        Instruction token ids.
    actions : ndarray, shape (n, H, 2)
        The expert's chunk, divided by the agent speed (entries in [-1, 1]).
    future : ndarray of uint8, shape (n, F, 2, 32, 32)
        Frames at t + H/F, ..., t + H (the posterior branch's input; training only).
    future_target : ndarray, shape (n, 2)
        The target's position at t + H (the latent probes' label).
    target_velocity : ndarray, shape (n, 2)
        The hidden velocity at t.
    """

    context: np.ndarray
    instruction: np.ndarray
    actions: np.ndarray
    future: np.ndarray
    future_target: np.ndarray
    target_velocity: np.ndarray

    def __len__(self) -> int:
        return len(self.actions)


def make_dataset(n_episodes: int, config: SimConfig | None = None, seed: int = 0) -> Dataset:
    """Roll out the expert (with DART noise on the executed moves) and label every step with its chunk.

    Each episode gives ``steps - horizon`` samples; the executed move is the expert's first move
    plus Gaussian noise of scale ``dart_noise × agent_speed``, so states off the expert's path
    appear, while every label is the clean expert chunk from the visited state.

    Parameters
    ----------
    n_episodes : int
        Episodes to roll out.
    config : SimConfig, optional
        The task (defaults if None).
    seed : int
        Seeds starts and noise.

    Returns
    -------
    Dataset
        ``n_episodes × (steps - horizon)`` samples.

    Examples
    --------
    >>> d = make_dataset(2, SimConfig(steps=12), seed=0)
    >>> len(d), d.context.shape, d.future.shape, bool(np.abs(d.actions).max() <= 1 + 1e-9)
    (8, (8, 4, 32, 32), (8, 4, 2, 32, 32), True)
    """
    config = config or SimConfig()
    n_episodes = check_range("n_episodes", n_episodes, low=1, high=100_000, integer=True)
    s = start_states(n_episodes, config, derive_seed(seed, "starts"))
    rng = derive_rng(seed, "dart")
    H, F = config.horizon, config.n_future
    T = config.steps
    agents, targets, vels = [s.agent.copy()], [s.target.copy()], [s.velocity.copy()]
    prev = s.previous
    agent, target, vel = s.agent.copy(), s.target.copy(), s.velocity.copy()
    chunks = []
    for _ in range(T):
        chunk = expert_chunk(agent, target, vel, config)
        chunks.append(chunk)
        move = chunk[:, 0] + rng.normal(scale=config.dart_noise * config.agent_speed, size=agent.shape)
        agent = np.clip(agent + _clip(move, config.agent_speed), 0.0, 1.0)
        target, vel = bounce(target, vel, 1)
        agents.append(agent.copy())
        targets.append(target.copy())
        vels.append(vel.copy())
    A, Tg = np.stack(agents, 1), np.stack(targets, 1)          # (n, T + 1, 2)
    Tprev = np.concatenate([prev[:, None], Tg[:, :-1]], axis=1)
    Aprev = np.concatenate([A[:, :1], A[:, :-1]], axis=1)
    ts = np.arange(T - H)
    idx = np.ix_(np.arange(n_episodes), ts)
    now = render_frames(A[idx].reshape(-1, 2), Tg[idx].reshape(-1, 2), config.blob)
    before = render_frames(Aprev[idx].reshape(-1, 2), Tprev[idx].reshape(-1, 2), config.blob)
    context = np.concatenate([before, now], axis=1)
    offsets = [H // F * (i + 1) for i in range(F)]
    future = np.stack([render_frames(A[:, ts + o].reshape(-1, 2), Tg[:, ts + o].reshape(-1, 2), config.blob)
                       for o in offsets], axis=1)
    actions = np.stack(chunks, 1)[:, ts].reshape(-1, H, 2) / config.agent_speed
    m = len(actions)
    return Dataset(context, np.tile(instruction_ids(), (m, 1)), actions, future,
                   Tg[:, ts + H].reshape(-1, 2), np.stack(vels, 1)[:, ts].reshape(-1, 2))


def instruction_ids() -> np.ndarray:
    return np.array([VOCAB[w] for w in INSTRUCTION], dtype=np.int64)


def _clip(step: np.ndarray, vmax: float) -> np.ndarray:
    norm = np.linalg.norm(step, axis=-1, keepdims=True)
    return np.where(norm > vmax, step * vmax / np.maximum(norm, 1e-12), step)


@dataclass
class Rollout:
    """Closed-loop episodes of one policy: positions, frames and success.

    Attributes
    ----------
    agent : ndarray, shape (n, T + 1, 2)
        Agent positions.
    target : ndarray, shape (n, T + 1, 2)
        Target positions.
    distance : ndarray, shape (n, T + 1)
        Agent-target distance.
    success : ndarray of bool, shape (n,)
        Whether the distance fell below the radius at some step.
    success_rate : float
        The share of successes.
    """

    agent: np.ndarray
    target: np.ndarray
    distance: np.ndarray
    success: np.ndarray
    success_rate: float


def rollout(policy, n_episodes: int, config: SimConfig | None = None, seed: int = 0, replan: int | None = None) -> Rollout:
    """Run ``policy`` in closed loop on ``n_episodes`` fresh episodes (all at once).

    Parameters
    ----------
    policy : callable
        ``policy(context, instruction) -> chunk``: uint8 frames (n, 4, 32, 32) and token ids (n, 3)
        to moves (n, H, 2) in units of the agent speed. The string ``"expert"`` uses the scripted
        expert and ``"chaser"`` heads for the target's current position (the control).
    n_episodes : int
        Episodes.
    config : SimConfig, optional
        The task.
    seed : int
        Seeds the starting states.
    replan : int, optional
        Moves executed from each chunk before the policy is asked again (default: the whole chunk).

    Returns
    -------
    Rollout
        Trajectories and success.

    Examples
    --------
    >>> e, c = rollout("expert", 40, seed=1), rollout("chaser", 40, seed=1)
    >>> bool(e.success_rate > c.success_rate), e.agent.shape
    (True, (40, 25, 2))
    """
    config = config or SimConfig()
    n_episodes = check_range("n_episodes", n_episodes, low=1, high=100_000, integer=True)
    replan = config.horizon if replan is None else check_range("replan", replan, low=1, high=config.horizon,
                                                               integer=True)
    s = start_states(n_episodes, config, seed)
    agent, target, vel, prev_t = s.agent.copy(), s.target.copy(), s.velocity.copy(), s.previous.copy()
    prev_a = agent.copy()
    agents, targets = [agent.copy()], [target.copy()]
    chunk, used = None, replan
    instr = np.tile(instruction_ids(), (n_episodes, 1))
    for _ in range(config.steps):
        if used >= replan:
            if policy == "expert":
                chunk = expert_chunk(agent, target, vel, config) / config.agent_speed
            elif policy == "chaser":
                chunk = np.repeat(_clip(target - agent, config.agent_speed)[:, None] / config.agent_speed,
                                  config.horizon, axis=1)
            else:
                ctx = np.concatenate([render_frames(prev_a, prev_t, config.blob),
                                      render_frames(agent, target, config.blob)], axis=1)
                chunk = np.asarray(policy(ctx, instr), dtype=float)
            used = 0
        move = _clip(chunk[:, used] * config.agent_speed, config.agent_speed)
        used += 1
        prev_a, prev_t = agent.copy(), target.copy()
        agent = np.clip(agent + move, 0.0, 1.0)
        target, vel = bounce(target, vel, 1)
        agents.append(agent.copy())
        targets.append(target.copy())
    A, Tg = np.stack(agents, 1), np.stack(targets, 1)
    dist = np.linalg.norm(A - Tg, axis=-1)
    success = (dist <= config.radius).any(1)
    return Rollout(A, Tg, dist, success, float(success.mean()))
