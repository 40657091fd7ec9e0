"""Smooth one-dimensional motion profiles for hands and cards (pure math, no state).

Human reaching movements follow a bell-shaped speed profile close to the minimum-jerk
trajectory (Flash and Hogan, 1985): position ``10s^3 - 15s^4 + 6s^5`` of the way, zero
velocity and acceleration at both ends. :func:`quintic` is the same polynomial family with
given end velocities, for a hand that lets go of a card while still moving. A card set down on
a pile follows :func:`landing_height`: it rises off its source, peaks two thirds of the way and
comes down to touch the destination at exactly the end of the interval, still moving down, so
that the first contact is a well-defined instant.
"""

from __future__ import annotations

import math


def clamp01(s: float) -> float:
    return 0.0 if s <= 0.0 else 1.0 if s >= 1.0 else s


def minjerk(s: float) -> float:
    """Fraction of the way done at normalised time ``s`` (clamped to [0, 1])."""
    s = clamp01(s)
    return s * s * s * (10.0 + s * (-15.0 + 6.0 * s))


def minjerk_speed(s: float) -> float:
    """d minjerk / ds: peaks at 1.875 in the middle."""
    s = clamp01(s)
    return 30.0 * s * s * (1.0 - s) * (1.0 - s)


def smoothstep(x: float, a: float, b: float) -> float:
    """0 before ``a``, 1 after ``b``, a smooth (C1) ramp between."""
    if b <= a:
        return 1.0 if x >= b else 0.0
    s = clamp01((x - a) / (b - a))
    return s * s * (3.0 - 2.0 * s)


def quintic(p0: float, v0: float, p1: float, v1: float, duration: float, tau: float) -> float:
    """Quintic Hermite from (p0, v0) to (p1, v1) over ``duration``, zero end accelerations,
    evaluated ``tau`` seconds in (clamped). With v0 = v1 = 0 it is the minimum-jerk path."""
    if duration <= 0.0:
        return p1
    s = clamp01(tau / duration)
    s2, s3 = s * s, s * s * s
    h00 = 1.0 - s3 * (10.0 - 15.0 * s + 6.0 * s2)
    h01 = 1.0 - h00
    h10 = s - s3 * (6.0 - 8.0 * s + 3.0 * s2)
    h11 = s3 * (-4.0 + 7.0 * s - 3.0 * s2)
    return h00 * p0 + h01 * p1 + duration * (h10 * v0 + h11 * v1)


def bump(s: float) -> float:
    """A lift that is 0 with zero slope at both ends and 1 in the middle: 16 s^2 (1-s)^2."""
    s = clamp01(s)
    return 16.0 * s * s * (1.0 - s) * (1.0 - s)


def landing_height(s: float, h0: float, h1: float, lift: float) -> float:
    """Height of a carried card at normalised time ``s`` of a carry from ``h0`` to ``h1``.

    Leaves ``h0`` with zero vertical speed, peaks about ``lift`` above the straight line near
    s = 2/3 and reaches ``h1`` at s = 1 moving down at ``6.75 * lift / duration``: strictly
    above ``h1`` for the last part of the carry (from s = 1/2 on whenever ``lift`` exceeds
    ``|h1 - h0|``), so the first contact is at s = 1 exactly.
    """
    s = clamp01(s)
    m = minjerk(s)
    return (1.0 - m) * h0 + m * h1 + lift * 6.75 * s * s * (1.0 - s)


def wrap_deg(a: float) -> float:
    """An angle in degrees folded into (-180, 180]."""
    a = math.fmod(a, 360.0)
    if a <= -180.0:
        a += 360.0
    elif a > 180.0:
        a -= 360.0
    return a


def lerp_angle(a0: float, a1: float, s: float) -> float:
    """From ``a0`` toward ``a1`` the short way round, fraction ``s``."""
    return a0 + wrap_deg(a1 - a0) * s


def reach_angle(shoulder: tuple[float, float], target: tuple[float, float]) -> float:
    """HandPose angle (0 toward -y, positive turning +x toward +y) of a forearm pointing from
    ``shoulder`` to ``target``."""
    dx, dy = target[0] - shoulder[0], target[1] - shoulder[1]
    return math.degrees(math.atan2(dx, -dy))


def forward(angle_deg: float) -> tuple[float, float]:
    """Unit vector in which the fingers of a hand at ``angle_deg`` point."""
    a = math.radians(angle_deg)
    return math.sin(a), -math.cos(a)
