"""`SecurityRisk`: how risky a tool call is, as the LLM or an analyzer rates it."""

from __future__ import annotations

from enum import StrEnum

from openhands.sdk.errors import InvalidArgumentError, InvalidArgumentTypeError

_ORDER = {"LOW": 0, "MEDIUM": 1, "HIGH": 2}
_COLOURS = {"LOW": "green", "MEDIUM": "yellow", "HIGH": "red", "UNKNOWN": "white"}


class SecurityRisk(StrEnum):
    """LOW, MEDIUM or HIGH, or UNKNOWN when nobody rated the call.

    LOW < MEDIUM < HIGH; UNKNOWN compares with nothing (`<` and friends raise an error that
    is both a ValueError, as the reference's, and a TypeError), so a policy must say what it
    does with an unrated call.
    """

    UNKNOWN = "UNKNOWN"
    LOW = "LOW"
    MEDIUM = "MEDIUM"
    HIGH = "HIGH"

    @classmethod
    def parse(cls, value: object) -> SecurityRisk:
        """The risk named by `value` (any case); UNKNOWN for anything else."""
        text = str(getattr(value, "value", value) or "").strip().upper()
        return cls(text) if text in cls.__members__ else cls.UNKNOWN

    def get_color(self) -> str:
        """The colour a console shows this risk in (rich's names)."""
        return _COLOURS[self.value]

    def is_riskier(self, other: SecurityRisk, reflexive: bool = True) -> bool:
        """Whether this risk is above `other` (or equal, with `reflexive`).

        Raises ValueError when either is UNKNOWN: an unrated call is not comparable.
        """
        if self is SecurityRisk.UNKNOWN or other is SecurityRisk.UNKNOWN:
            raise InvalidArgumentError(
                f"cannot compare {self.value} with {other.value}: rate the call LOW, MEDIUM or "
                "HIGH first (an UNKNOWN risk is not ordered)"
            )
        mine, theirs = _ORDER[self.value], _ORDER[other.value]
        return mine >= theirs if reflexive else mine > theirs

    def _rank(self, other: object) -> tuple[int, int]:
        if not isinstance(other, SecurityRisk):
            raise TypeError(f"cannot compare SecurityRisk with {type(other).__name__}")
        if self is SecurityRisk.UNKNOWN or other is SecurityRisk.UNKNOWN:
            raise InvalidArgumentTypeError(
                "UNKNOWN risk is not ordered: rate the call LOW, MEDIUM or HIGH first"
            )
        return _ORDER[self.value], _ORDER[other.value]

    def __lt__(self, other: object) -> bool:
        mine, theirs = self._rank(other)
        return mine < theirs

    def __le__(self, other: object) -> bool:
        mine, theirs = self._rank(other)
        return mine <= theirs

    def __gt__(self, other: object) -> bool:
        mine, theirs = self._rank(other)
        return mine > theirs

    def __ge__(self, other: object) -> bool:
        mine, theirs = self._rank(other)
        return mine >= theirs
