"""Windowed alignment: literal token lists in, candidates and their origins out."""

from hsd_cli.spec.align import OutputIndex, align_origins, build_index, resync_origins, starts_origins


def test_matches_at_several_positions_and_drafts():
    """Every occurrence of the window in every draft yields its continuation, with where it starts."""
    drafts = [[1, 2, 3, 4, 5, 1, 2, 3, 6], [9, 1, 2, 3, 7, 8]]
    index = build_index(drafts, n=3, min_n=3)
    cands, origins, k = align_origins(index, [0, 1, 2, 3], max_depth=2, max_candidates=8)
    assert cands == [[4, 5], [6], [7, 8]] and k == 3  # Not [[4, 5, 1]]: cut to max_depth
    assert origins == [(0, 3), (0, 8), (1, 4)]


def test_longest_window_wins_over_shorter():
    """With fallback, a 3-token match hides the 1-token matches."""
    index = build_index([[5, 6, 7, 8], [7, 9]], n=3, min_n=1)
    assert align_origins(index, [5, 6, 7], 4, 8) == ([[8]], [(0, 3)], 3)  # Not [[8], [9]]


def test_fallback_to_shorter_window():
    index = build_index([[4, 7, 9, 10]], n=3, min_n=1)
    assert align_origins(index, [1, 2, 7], 4, 8) == ([[9, 10]], [(0, 2)], 1)


def test_no_fallback_when_min_n_equals_n():
    index = build_index([[4, 7, 9, 10]], n=3, min_n=3)
    assert align_origins(index, [1, 2, 7], 4, 8) == ([], [], 0)


def test_match_at_draft_end_has_no_candidate():
    index = build_index([[1, 2, 3]], n=3, min_n=3)
    assert align_origins(index, [1, 2, 3], 4, 8) == ([], [], 0)


def test_agreement_kept_distinct_capped():
    """Agreeing continuations come once per draft position (the tree counts them); distinct ones capped."""
    index = build_index([[1, 2, 1, 2, 1, 2], [1, 2]], n=1, min_n=1)
    cands, origins, _ = align_origins(index, [1], max_depth=1, max_candidates=8)
    assert cands == [[2], [2], [2], [2]]  # Not [[2]]: four draft positions agree
    assert origins == [(0, 1), (0, 3), (0, 5), (1, 1)]
    index = build_index([[1, 2, 1, 3, 1, 4, 1, 5]], n=1, min_n=1)
    assert align_origins(index, [1], 1, max_candidates=2) == ([[2], [3]], [(0, 1), (0, 3)], 1)


def test_short_prefix_uses_what_it_has():
    index = build_index([[8, 9, 10]], n=3, min_n=1)
    assert align_origins(index, [8], 5, 8) == ([[9, 10]], [(0, 1)], 1)


def test_region_starts_offered_once():
    index = build_index([[1, 2, 3], [4, 5], [6]], n=3)
    assert starts_origins(index, max_depth=2, max_candidates=2) == ([[1, 2], [4, 5]], [(0, 0), (1, 0)])
    assert starts_origins(index, 2, 2) == ([[6]], [(2, 0)])
    assert starts_origins(index, 2, 2) == ([], [])


def test_empty_drafts_are_ignored_but_keep_their_numbers():
    """Origins name drafts as given to build_index, so an empty draft before does not shift them."""
    index = build_index([[], [3, 4]], n=1)
    assert align_origins(index, [3], 4, 8) == ([[4]], [(1, 1)], 1)
    assert starts_origins(index, 4, 8) == ([[3, 4]], [(1, 0)])


def test_short_windows_rank_matches_by_distance_from_where_the_output_stands():
    """A 1-token window matches all over a long draft: the match next to the expected position
    comes first (Not: the page's first matches), so a small candidate limit keeps it."""
    draft = [5, 1, 2, 5, 3, 4, 5, 6, 7, 5, 8, 9]
    index = build_index([draft], n=1)
    cands, origins, k = align_origins(index, [5], max_depth=2, max_candidates=1, near=(0, 7))
    assert (cands, origins, k) == ([[6, 7]], [(0, 7)], 1)
    far, _, _ = align_origins(index, [5], max_depth=2, max_candidates=1)
    assert far == [[1, 2]]  # without a position: document order


def test_resync_offers_the_expected_position_and_its_neighbours():
    """After a misread the draft goes on at the expected position, or a token or two beside it."""
    index = build_index([[10, 11, 12, 13, 14, 15, 16]], n=3)
    cands, origins = resync_origins(index, (0, 3), max_depth=2, have=[[12, 13]])
    assert origins == [(0, 3), (0, 4), (0, 5), (0, 1)]  # Not (0, 2): its continuation is already offered
    assert cands == [[13, 14], [14, 15], [15, 16], [11, 12]]


def test_resync_ignores_positions_off_the_draft():
    index = build_index([[], [1, 2]], n=3)
    assert resync_origins(index, (1, 2), 4, []) == ([[2], [1, 2]], [(1, 1), (1, 0)])  # none at or past the end
    assert resync_origins(index, (0, 0), 4, []) == ([], [])  # an empty draft


def test_own_output_offers_its_latest_continuations_longest_window_first():
    own = OutputIndex(3)
    out = [5, 6, 7, 1, 5, 6, 8, 2, 9, 6]
    assert own.continuations(out, max_depth=2, limit=2) == [[8, 2], [7, 1]]  # after 6, latest first
    out += [8]
    assert own.continuations(out, max_depth=3, limit=2) == [[2, 9, 6]]  # "6 8" beats "8" alone
    assert own.continuations([4], 3, 2) == []  # nothing before it
