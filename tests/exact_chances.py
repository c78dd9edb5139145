"""Whether simulated outcomes agree with the exact chances of their rules (fixed seeds): a rate's 95 % (Wilson)
interval holds the exact chance and a binomial test agrees; values follow an exact distribution (chi-square) and
take no value it cannot give."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scipy.stats import binomtest, chisquare

from hexlog.service.simulation import wilson

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from fractions import Fraction

#: the least p-value that agrees
P_MIN = 0.001


def holds(flags: Sequence[bool], exact: Fraction) -> bool:
    """Whether the flags' rate agrees with the exact chance: its 95 % interval holds it, and a binomial test agrees."""
    hits, n = sum(flags), len(flags)
    low, high = wilson(hits, n)
    return low <= exact <= high and binomtest(hits, n, float(exact)).pvalue > P_MIN


def fits(values: Sequence[Any], exact: Mapping[Any, Fraction]) -> bool:
    """Whether the values take only values the exact distribution gives (with a chance above 0), and follow it."""
    keys = [key for key, chance in exact.items() if chance]
    if not set(values) <= set(keys):
        return False
    observed = [sum(1 for v in values if v == key) for key in keys]
    expected = [float(exact[key]) * len(values) for key in keys]
    return bool(chisquare(observed, expected).pvalue > P_MIN)
