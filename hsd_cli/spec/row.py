"""One row of the loop: the options its request gives, the settings its group shares, its state.

decode.py steps the rows, propose.py builds their trees; both read these records.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from hsd_cli.config import SpecConfig
from hsd_cli.spec.align import NgramIndex, Origin, OutputIndex
from hsd_cli.spec.budget import AcceptPrior, AcceptStats, CostModel, PassPrices
from hsd_cli.spec.penalty import SeenTokens
from hsd_cli.spec.stats import DecodeStats
from hsd_cli.spec.stop import StopReason, StopRule


@dataclass(frozen=True, slots=True)
class DecodeOptions:
    """What the loop needs besides the spec settings; all optional."""

    starts: bool = False  # offer draft beginnings after a boundary token
    boundary_ids: frozenset[int] = frozenset()
    cost: CostModel | None = None  # the device's forward cost; None: trees up to max_nodes
    penalty: float = 1.0  # the checkpoint's repetition penalty (1.0 = none)
    prompts: list[list[int]] | None = None  # per row: prompt token ids (needed with a penalty)
    batch_stop: Callable[[list[DecodeStats]], bool] | None = None  # running rows' stats -> cut them all
    prior: AcceptPrior | None = None  # acceptance believed before any is seen; None: DEFAULT_PRIOR
    own: bool = True  # also draft from the row's own output (False: plain AR decoding)
    limits: tuple[int, ...] | None = None  # per row: a token budget under the rule's (None: the rule's)
    prices: PassPrices | None = None  # the run's passes against their price, shared by its loops


NO_OPTIONS = DecodeOptions()  # the default: no draft starts, no cost model, no penalty


@dataclass(slots=True)
class Row:
    """One sequence of the batch while it decodes: its drafts' index, its output, where it stands in the drafts."""

    index: NgramIndex
    tokens: list[int] = field(default_factory=list)
    stop: StopReason = StopReason.NONE
    stats: DecodeStats = field(default_factory=DecodeStats)
    accept: AcceptStats = field(default_factory=AcceptStats)
    seen: SeenTokens = field(default_factory=SeenTokens)  # prompt + generated tokens (repetition penalty)
    origins: list[Origin] = field(default_factory=list)  # per token; may run past `tokens` at a stop
    cut_streak: int = 0  # steps in a row whose full-window candidates the cost cut to the root
    # Where the output stands in the drafts: the last accepted draft token's origin, and the
    # tokens written since (a window match near it is the likeliest continuation).
    last: Origin | None = None
    since: int = 0
    group: int = 0  # the request (SpecStepper.groups) the row belongs to
    limit: int | None = None  # stop (BUDGET) after this many tokens, below the rule's budget
    own: OutputIndex = field(init=False)  # its own output as a draft, windows as long as the drafts'

    def __post_init__(self) -> None:
        self.own = OutputIndex(self.index.n)

    def expected(self) -> Origin | None:
        """The draft position the next token most likely continues from."""
        return None if self.last is None else (self.last[0], self.last[1] + 1 + self.since)

    def track(self, accepted: Origin | None, written: int) -> None:
        """Move the draft position on: to the last accepted draft token, plus the bonus token
        (or by the `written` tokens, when none came from a draft)."""
        ok = accepted is not None and accepted[0] >= 0
        self.last, self.since = (accepted, 1) if ok else (self.last, self.since + written)

    def push(self, new: list[int], rule: StopRule) -> None:
        # Seen before the stop: a stopped row leaves the batch, so its penalty context is not read again.
        self.seen.update(new)
        # Token by token, so every method stops at exactly the same place.
        self.stop = rule.extend(self.tokens, new, self.limit)


@dataclass(frozen=True, slots=True)
class RowGroup:
    """The settings the rows of one request share (a page, or one batch of region crops)."""

    cfg: SpecConfig
    rule: StopRule
    opts: DecodeOptions
