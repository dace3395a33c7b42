"""langdetect's decision (seed 0), recomputed quickly and bit for bit.

IFEval's language checks are scored with ``langdetect.detect``; its label is what the reward
must follow, including its quirks (all-caps English is often "de"). langdetect spends its
time in per-character Python loops and a per-step Python loop over 55 languages. This module
runs the same algorithm on the same data:

* Text preparation: the same URL/e-mail removal, Vietnamese normalisation, 10,000-character
  cut, space collapsing and "drop Latin letters from mostly non-Latin text" rule, as regular
  expressions; characters are normalised by ``str.translate`` through a memo of langdetect's
  own ``NGram.normalize``.
* N-grams: the same ordered list, built for all positions at once with arrays (see
  ``ngram_rows``) from langdetect's character normalisation tabulated for the Basic
  Multilingual Plane; n-grams are looked up as integer keys in a hash table over the
  profiles, or in small direct tables when the normalised text is ASCII (letters and spaces
  only). The profiles are a dense matrix, a row per n-gram.
* Random walk: the seeded generator's 32-bit outputs are drawn once per process, so the
  ``choice`` draws (rejection sampling on ``n.bit_length()`` bits) and ``gauss`` values are
  read off that stream instead of being drawn one call at a time. ``detect`` runs each trial
  as ``langdetect_walk.walk`` (a few array operations a trial, the same stop step as
  langdetect, probabilities equal up to rounding) and replays borderline trials, and texts
  whose leader is within rounding of a tie, exactly: with numpy in the same order of IEEE
  operations (sequential products between normalisations, normalisation by the same
  left-to-right ``sum``), so every probability is bit-identical to langdetect's
  (``probabilities(text, exact=True)``). Trials stop early once the leader cannot be
  overtaken by the trials left.
* With numba (``langdetect_jit``), text preparation and n-grams are one compiled pass and
  all trials of a text one compiled loop, bit-identical to the exact replay (``gauss``
  weights tabulated per stream position by CPython's ``math``); the numpy paths above are
  the fallback and the reference the kernels are tested against.

``self_check()`` compares the stream emulation with Python's ``random`` at first use; if a
future Python changes ``choice`` or ``gauss``, the caller falls back to langdetect itself.
"""

from __future__ import annotations

import math
import random
import re
import threading
from typing import Any

from rlvr_ifeval import langdetect_compiled, langdetect_jit, langdetect_tables, langdetect_walk

_SEED = 0
_MAX_CHAR_MEMO = 20_000
_BMP = 0x10000
# langdetect never draws more than n_trial * (ITERATION_LIMIT + 1) n-grams plus two gauss
# pairs per two trials; with rejection sampling that is at most a few tens of thousands of
# 32-bit words. The stream grows on demand if a text ever needs more.
_INITIAL_STREAM_WORDS = 1 << 16
_FIRST_CHUNK_STEPS = 96
# The walk's probabilities differ from langdetect's by rounding (about 1e-12, at most 1e-7):
# a leader this close to a tie or to the 0.1 reporting threshold is recomputed exactly.
_LABEL_MARGIN = 1e-6
_EMPTY_KEY = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_VECTOR_PROBES = 2
_ASCII_ALPHABET = " ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_ASCII_SYMBOLS = len(_ASCII_ALPHABET)


class _CharNormaliser(dict):
    """``str.translate`` table: code point -> langdetect's normalised character, memoised."""

    def __init__(self, normalize: Any) -> None:
        super().__init__()
        self._normalize = normalize

    def __missing__(self, code: int) -> str:
        value = self._normalize(chr(code))
        self[code] = value
        return value


class _CharKinds(dict):
    """``str.translate`` table: code point -> "S" (space), "U" (``isupper``) or "o" (other)."""

    def __missing__(self, code: int) -> str:
        ch = chr(code)
        value = self[code] = "S" if ch == " " else ("U" if ch.isupper() else "o")
        return value


class _Engine:
    """Profiles, memos and the seeded random stream of one process."""

    def __init__(self) -> None:
        import numpy as np
        from langdetect.detector import Detector
        from langdetect.utils.ngram import NGram

        self.np = np
        self.url_re: re.Pattern[str] = Detector.URL_RE
        self.mail_re: re.Pattern[str] = Detector.MAIL_RE
        self.normalize_vi = NGram.normalize_vi
        self.normalize = NGram.normalize
        self.chars = _CharNormaliser(NGram.normalize)
        self.max_text_length = 10_000  # Detector's default max_text_length
        self.alpha = Detector.ALPHA_DEFAULT
        self.alpha_width = Detector.ALPHA_WIDTH
        self.base_freq = Detector.BASE_FREQ
        self.iteration_limit = Detector.ITERATION_LIMIT
        self.conv_threshold = Detector.CONV_THRESHOLD
        self.prob_threshold = Detector.PROB_THRESHOLD
        self.n_trial = 7  # Detector's default n_trial
        self.lock = threading.Lock()
        # The fixed tables (profiles, n-gram hash table, ASCII and BMP tables): read from the
        # on-disk cache, or built from langdetect's profiles once per machine (2-3 s).
        tables, self.tables_cached = langdetect_tables.load_or_build(_build_tables)
        self.langs: list[str] = [str(code) for code in tables["langs"]]
        self.n_langs = len(self.langs)
        # The profiles as a dense matrix, a row per n-gram (38 MB; langdetect's own dict of
        # Python floats is several times larger): the walk reads a row per step, and gathering
        # dense rows is far cheaper than expanding sparse ones.
        self.profiles = tables["profiles"]
        self.gram_keys = tables["gram_keys"]
        # An open-addressing hash table from n-gram keys to rows, probed with array operations.
        self.table_keys = tables["table_keys"]
        self.table_rows = tables["table_rows"]
        self.table_mask = len(self.table_keys) - 1
        self.table_mask_u64 = np.uint64(self.table_mask)
        self.table_shift_u64 = np.uint64(64 - self.table_mask.bit_length())
        self._row_of_key: dict[int, int] | None = None
        # Rows of the n-grams made of ASCII letters and spaces, indexed in base 53.
        self.ascii_rows = [tables["ascii_rows_1"], tables["ascii_rows_2"], tables["ascii_rows_3"]]
        self.ascii_codes = np.zeros(128, dtype=np.intp)  # other ASCII never survives normalising
        self.ascii_symbol = np.full(128, -1, dtype=np.intp)  # the compiled pass checks instead
        for i, ch in enumerate(_ASCII_ALPHABET):
            self.ascii_codes[ord(ch)] = self.ascii_symbol[ord(ch)] = i
        self.no_capitals = np.zeros(0, dtype=bool)
        self.kinds = _CharKinds()
        # langdetect's character normalisation and ``isupper`` for the whole Basic Multilingual Plane.
        self.bmp_normal = tables["bmp_normal"]
        self.bmp_upper = tables["bmp_upper"]
        self.ascii_normal = str.maketrans({c: chr(self.bmp_normal[c]) for c in range(128)})
        self.rng = random.Random(_SEED)
        self.stream = np.empty(0, dtype=np.int64)
        # (stream, first weights, second weights) for the compiled trials, replaced as a whole
        # when the stream grows, so that a reader never pairs a stream with shorter tables.
        self.weighted_stream: tuple[Any, Any, Any] | None = None
        self._extend_stream(_INITIAL_STREAM_WORDS)
        # numba's kernels are loaded later (``enable_kernels``): until then, and wherever they
        # fail or differ from the numpy paths, the numpy paths run (a broken cache or toolchain
        # then costs speed, not verdicts).
        self.kernels_ok = False
        self.compiled = False
        self._kernels_started = False
        self._kernels_checked = False
        self._kernel_lock = threading.Lock()

    @property
    def row_of_key(self) -> dict[int, int]:
        """n-gram key -> profile row, for the rare keys in long probe chains (built on first use)."""
        if self._row_of_key is None:
            self._row_of_key = {key: row for row, key in enumerate(self.gram_keys.tolist())}
        return self._row_of_key

    def enable_kernels(self, use: bool = True) -> bool:
        """Load numba's kernels (``langdetect_jit.load``), check them against the numpy paths
        once, and use them (``use``) if they agree; whether they agree. Safe from any thread: a
        second caller waits for the first, and the engine switches only when everything the
        kernels read is in place."""
        with self._kernel_lock:
            self._kernels_started = True
            if not self._kernels_checked:
                ok = False
                if langdetect_jit.load():
                    with self.lock:  # the stream may be growing on another thread
                        if langdetect_jit.TRIALS is not None and self.weighted_stream is None:
                            self.weighted_stream = (self.stream, *langdetect_compiled.gauss_weights(self, self.stream))
                    ok = langdetect_compiled.kernels_agree(self)
                self.kernels_ok, self._kernels_checked = ok, True
            self.compiled = self.kernels_ok and use
            return self.kernels_ok

    def start_kernels(self, use: bool = True) -> None:
        """``enable_kernels`` on a daemon thread, once: this process's first detections run on
        the numpy paths (about 1 ms a text) instead of waiting 1-3 s for numba."""
        with self.lock:
            if self._kernels_started:
                return
            self._kernels_started = True
        threading.Thread(target=self.enable_kernels, args=(use,), name="rlvr-ifeval-numba", daemon=True).start()

    # -- the seeded stream ------------------------------------------------------------------
    def _extend_stream(self, words: int) -> None:
        raw = self.rng.getrandbits(32 * words).to_bytes(4 * words, "little")
        fresh = self.np.frombuffer(raw, dtype="<u4").astype(self.np.int64)
        stream = self.np.concatenate([self.stream, fresh])
        stream.setflags(write=False)
        if langdetect_jit.TRIALS is not None:
            self.weighted_stream = (stream, *langdetect_compiled.gauss_weights(self, stream))
        self.stream = stream

    def _grow_stream(self, seen: int) -> None:
        """Double the stream unless another thread has grown it past ``seen`` words already."""
        with self.lock:
            if len(self.stream) <= seen:
                self._extend_stream(len(self.stream))

    def _words(self, start: int, count: int) -> Any:
        while start + count > len(self.stream):
            self._grow_stream(start + count - 1)
        return self.stream[start : start + count]

    def _uniform(self, pos: int) -> float:
        """``random.random()`` from the two 32-bit words at ``pos`` (CPython's genrand_res53)."""
        a, b = (int(w) for w in self._words(pos, 2))
        return ((a >> 5) * 67108864.0 + (b >> 6)) * (1.0 / 9007199254740992.0)

    def _gauss_pair(self, pos: int) -> tuple[float, float]:
        """``random.gauss(0, 1)`` and its cached second value, from four words at ``pos``."""
        x2pi = self._uniform(pos) * (2.0 * math.pi)
        g2rad = math.sqrt(-2.0 * math.log(1.0 - self._uniform(pos + 2)))
        return 0.0 + math.cos(x2pi) * g2rad * 1.0, math.sin(x2pi) * g2rad

    def _draws(self, pos: int, n: int, count: int) -> tuple[Any, Any]:
        """``count`` successive ``choice`` indices into a list of ``n`` from word ``pos``, and the
        stream position of the word each one consumed."""
        np = self.np
        shift = 32 - n.bit_length()
        span = 2 * count + 64
        while True:
            values = self._words(pos, span) >> shift
            accepted = np.flatnonzero(values < n)
            if len(accepted) >= count:
                accepted = accepted[:count]
                return values[accepted], accepted + pos
            span *= 2

    # -- text -------------------------------------------------------------------------------
    def prepared_text(self, text: str) -> str:
        """Detector.append followed by Detector.cleaning_text."""
        # Each step is skipped where it cannot apply: URLs need "http", e-mail addresses "@";
        # Vietnamese marks and the non-Latin rule need characters beyond ASCII.
        if "http" in text:
            text = self.url_re.sub(" ", text)
        if "@" in text:
            text = self.mail_re.sub(" ", text)
        ascii_only = text.isascii()
        if not ascii_only:
            text = self.normalize_vi(text)
        text = text[: self.max_text_length]
        if "  " in text:
            text = _SPACES.sub(" ", text)
        if not ascii_only:
            # Counted on code points: [A-z] is U+0041-U+007A; "non-Latin" is U+0300 and above
            # outside Latin Extended Additional (U+1E00-U+1EFF), as langdetect's regex says.
            points = self.np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=self.np.uint32)
            latin = int(self.np.count_nonzero((points >= 0x41) & (points <= 0x7A)))
            non_latin = int(self.np.count_nonzero((points >= 0x300) & ((points < 0x1E00) | (points > 0x1EFF))))
            if latin * 2 < non_latin:
                text = _LATIN.sub("", text)
        return text

    def _normalised_points(self, padded: str) -> tuple[Any, Any]:
        """Code points of ``padded`` after langdetect's character normalisation, and which of
        them are capitals (``isupper``)."""
        np = self.np
        if padded.isascii():
            # ASCII normalises to ASCII letters and spaces, where only A-Z are capitals.
            normal = np.frombuffer(padded.translate(self.ascii_normal).encode("ascii"), dtype=np.uint8)
            return normal, (normal >= ord("A")) & (normal <= ord("Z"))
        points = np.frombuffer(padded.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        if points.max() < _BMP:
            normal = self.bmp_normal[points]
            if normal.max() < _BMP:
                return normal, self.bmp_upper[normal]
        # Beyond the Basic Multilingual Plane (emoji, rare scripts): memoised per character.
        if len(self.chars) > _MAX_CHAR_MEMO:
            self.chars = _CharNormaliser(self.normalize)
        if len(self.kinds) > _MAX_CHAR_MEMO:
            self.kinds = _CharKinds()
        normalised = padded.translate(self.chars)
        normal = np.frombuffer(normalised.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        upper = np.frombuffer(normalised.translate(self.kinds).encode("ascii"), dtype=np.uint8) == ord("U")
        return normal, upper

    def ngram_rows(self, text: str, *, compiled: bool | None = None) -> Any:
        """Detector._extract_ngrams, as profile rows, in langdetect's order.

        langdetect reads the text one character at a time with a buffer of the last three
        characters that restarts after a space (the text starts with one). At character i
        it emits the 1-gram (unless it is a space), the 2-gram (unless both are spaces) and
        the 3-gram (unless the character before is a space, which began the buffer), all
        skipped when character i and the one before are both capitals, and keeps those in
        the profiles. The same grams are built here for all positions at once, or in one
        compiled pass (``langdetect_jit.NGRAMS``; ``compiled=False`` forces the numpy path).
        """
        np = self.np
        if self.compiled if compiled is None else compiled and self._kernels_loaded():
            return langdetect_compiled.ngram_rows(self, text)
        normal, upper = self._normalised_points(" " + self.prepared_text(text))
        positions = len(normal) - 1
        if positions < 1:
            return np.empty(0, dtype=np.intp)
        if normal.max() < 128:
            # Normalised ASCII text holds only letters and spaces: index small direct tables.
            codes = self.ascii_codes[normal]
            pairs = codes[:-1] * _ASCII_SYMBOLS + codes[1:]
            rows = np.empty((positions, 3), dtype=np.intp)
            rows[:, 0] = self.ascii_rows[0][codes[1:]]
            rows[:, 1] = self.ascii_rows[1][pairs]
            rows[0, 2] = -1
            rows[1:, 2] = self.ascii_rows[2][pairs[:-1] * _ASCII_SYMBOLS + codes[2:]]
        else:
            # Code points + 1, so that the keys of 1-, 2- and 3-grams fall in disjoint ranges.
            points = normal.astype(np.uint64) + 1
            keys = np.empty((positions, 3), dtype=np.uint64)
            keys[:, 0] = points[1:]
            keys[:, 1] = (points[:-1] << 21) | points[1:]
            keys[0, 2] = 0  # no 3-gram at the first position; key 0 is no n-gram
            keys[1:, 2] = (points[:-2] << 42) | (points[1:-1] << 21) | points[2:]
            rows = self._rows_of(keys.ravel()).reshape(positions, 3)
        space = normal == ord(" ")
        capitals = upper[1:] & upper[:-1]
        rows[space[1:] | capitals, 0] = -1
        rows[(space[1:] & space[:-1]) | capitals, 1] = -1
        rows[space[:-1] | capitals, 2] = -1
        flat = rows.ravel()
        return flat[flat >= 0]

    def _slot(self, keys: Any) -> Any:
        # Fibonacci hashing: the top bits of key * 2**64 / golden ratio (wrapping).
        np = self.np
        shift = np.uint64(64 - self.table_mask.bit_length())
        with np.errstate(over="ignore"):
            return ((keys * np.uint64(_GOLDEN)) >> shift).astype(np.intp)

    def _rows_of(self, keys: Any) -> Any:
        """Profile rows of n-gram keys (-1 where the profiles lack the n-gram)."""
        np = self.np
        table_keys, table_rows, mask = self.table_keys, self.table_rows, self.table_mask
        rows = np.full(len(keys), -1, dtype=np.intp)
        pending = np.arange(len(keys))
        slots = self._slot(keys)
        for _ in range(_VECTOR_PROBES):
            found = table_keys[slots]
            hit = found == keys[pending]
            rows[pending[hit]] = table_rows[slots[hit]]
            # A miss continues only past an occupied slot holding another key.
            more = ~hit & (found != _EMPTY_KEY)
            if not more.any():
                return rows
            pending, slots = pending[more], (slots[more] + 1) & mask
        # The few keys in long probe chains: a dictionary is cheaper than more array passes.
        row_of_key = self.row_of_key.get
        rows[pending] = [row_of_key(key, -1) for key in keys[pending].tolist()]
        return rows

    def profile_rows(self, rows: Any) -> Any:
        """The dense profile rows (n-gram probabilities for each language) of ``rows``."""
        return self.profiles[rows]

    # -- detection --------------------------------------------------------------------------
    def detect(self, text: str, *, exact: bool = False) -> str | None:
        """langdetect's label for ``text`` with seed 0; None where it finds no features.

        With numba's kernels the trials are langdetect's arithmetic bit for bit. Otherwise
        they run as ``langdetect_walk.walk`` (the same stop steps, hence the same draws, with
        probabilities equal up to rounding); where the final leader is within rounding of a
        tie or of langdetect's 0.1 reporting threshold the text is replayed exactly.
        ``exact=True`` always gives langdetect's arithmetic bit for bit.
        """
        total = self.probabilities(text, early_stop=True, exact=exact)
        if total is None:
            return None
        if not exact and not self._use_compiled_trials(None):
            second, first = self.np.partition(total, -2)[-2:]
            if first - second <= _LABEL_MARGIN or abs(first - self.prob_threshold) <= _LABEL_MARGIN:
                total = self.probabilities(text, early_stop=True, exact=True)
        best = int(self.np.argmax(total))
        if total[best] <= self.prob_threshold:
            return "unknown"
        return self.langs[best]

    def probabilities(
        self,
        text: str,
        *,
        early_stop: bool = False,
        exact: bool = True,
        trace: list | None = None,
        compiled: bool | None = None,
    ) -> Any:
        """langdetect's ``langprob`` vector, or None without features: bit for bit with
        ``exact``, else up to rounding (see ``detect``).

        With ``early_stop`` the trials stop once the leader cannot be overtaken by the trials
        left (each adds at most 1/n_trial to any language); the leader is then final but the
        vector partial. ``trace`` receives (steps, stream position after, walked) per trial,
        where walked says the vectorised walk decided the trial.
        """
        np = self.np
        gram_rows = self.ngram_rows(text, compiled=compiled)
        n = len(gram_rows)
        if n == 0:
            return None
        # The compiled loop is exact, so it serves both modes; ``compiled=False`` keeps the
        # numpy paths (they are the reference the compiled loop is tested against).
        if self._use_compiled_trials(compiled):
            return langdetect_compiled.probabilities(self, gram_rows, early_stop, trace)
        if exact:
            profiles = self.profiles

            def take(pos: int, count: int) -> tuple[Any, Any]:
                draws, word_pos = self._draws(pos, n, count)
                return profiles[gram_rows[draws]], word_pos

            margin = 1e-9
        else:
            draws = langdetect_walk.Draws(self, gram_rows, n)
            take = draws.take
            # Above the walk's rounding, so that an early stop is certain for langdetect too.
            margin = _LABEL_MARGIN
        n_trial = self.n_trial
        total = np.zeros(self.n_langs)
        pos = 0
        cached_gauss: float | None = None
        chunk = _FIRST_CHUNK_STEPS
        for trial in range(1, n_trial + 1):
            if cached_gauss is None:
                gauss, cached_gauss = self._gauss_pair(pos)
                pos += 4
            else:
                gauss, cached_gauss = cached_gauss, None
            weight = (self.alpha + gauss * self.alpha_width) / self.base_freq
            walked = None if exact else langdetect_walk.walk(self, draws, pos, weight, chunk)
            prob, steps, pos = walked or self._trial(take, pos, weight, chunk)
            if trace is not None:
                trace.append((steps, pos, walked is not None))
            # Trials of one text tend to take similar numbers of steps.
            chunk = max(16, steps + 10)
            total += prob / n_trial
            if early_stop and trial < n_trial:
                second, first = np.partition(total, -2)[-2:]
                if first - second > (n_trial - trial) / n_trial + margin:
                    break
        return total

    def _use_compiled_trials(self, compiled: bool | None) -> bool:
        wanted = self.compiled if compiled is None else compiled and self._kernels_loaded()
        return wanted and langdetect_jit.TRIALS is not None and self.weighted_stream is not None

    def _kernels_loaded(self) -> bool:
        # An explicit ``compiled=True`` (the kernel check, tests) may use loaded kernels before
        # the engine has switched to them; the default follows ``self.compiled``.
        return self.kernels_ok or langdetect_jit.NGRAMS is not None

    def _trial(self, take: Any, pos: int, weight: float, chunk: int) -> tuple[Any, int, int]:
        """One trial of the random walk from stream word ``pos``, in langdetect's exact order
        of operations: the normalised probabilities, the number of steps taken and the stream
        position after them. ``take(pos, count)`` gives the profile rows of the next ``count``
        draws and the stream position each consumed."""
        np = self.np
        multiply = np.multiply.reduce
        divide = np.divide
        limit, threshold = self.iteration_limit, self.conv_threshold
        steps = min(chunk, limit + 1)
        rows, word_pos = take(pos, steps)
        # factors[s + 1] is step s's factor. Before the product over steps a..b, row a (step
        # a-1's factor, already used) receives the normalised probabilities, so one reduction
        # multiplies in exactly langdetect's order: ((prob * f_a) * f_a+1) ... * f_b.
        factors = np.empty((steps + 1, self.n_langs))
        np.add(weight, rows, out=factors[1:])
        factors[0] = 1.0 / self.n_langs
        start = end = 0
        while True:
            if end >= steps:
                # Not converged within the chunk: draw a longer one (the same draws first).
                slot = factors[start].copy()
                steps = min(max(4 * steps, end + 1), limit + 1)
                rows, word_pos = take(pos, steps)
                factors = np.empty((steps + 1, self.n_langs))
                np.add(weight, rows, out=factors[1:])
                factors[start] = slot
            prob = multiply(factors[start : end + 2], 0)
            values = prob.tolist()
            total = sum(values)
            # max(p) / total equals max(p / total): rounding is monotonic.
            if max(values) / total > threshold or end >= limit:
                prob /= total
                return prob, end + 1, int(word_pos[end]) + 1
            divide(prob, total, factors[end + 1])
            start, end = end + 1, end + 5


def _build_tables() -> dict[str, Any]:
    """The fixed tables from langdetect's profiles (``langdetect_tables.NAMES``)."""
    import numpy as np
    from langdetect import detector_factory
    from langdetect.utils.ngram import NGram

    detector_factory.init_factory()
    factory = detector_factory._factory
    table: dict[str, list[float]] = factory.word_lang_prob_map
    grams = list(table)
    keys = [_gram_key(g) for g in grams]
    tables: dict[str, Any] = {
        "langs": np.array(list(factory.langlist)),
        "profiles": np.array([table[gram] for gram in grams], dtype=np.float64),
        "gram_keys": np.array(keys, dtype=np.uint64),
        # langdetect's character normalisation and ``isupper`` for the Basic Multilingual Plane.
        "bmp_normal": np.array([ord(NGram.normalize(chr(c))) for c in range(_BMP)], dtype=np.uint32),
        "bmp_upper": np.array([chr(c).isupper() for c in range(_BMP)], dtype=bool),
    }
    tables["table_keys"], tables["table_rows"] = _gram_table(keys)
    for size, rows in enumerate(_ascii_tables(grams), start=1):
        tables[f"ascii_rows_{size}"] = rows
    return tables


def _gram_table(keys: list[int]) -> tuple[Any, Any]:
    """An open-addressing hash table (load factor below 1/2, 3 MB): slot keys and rows."""
    import numpy as np

    bits = max(16, (2 * len(keys)).bit_length())
    mask, shift = (1 << bits) - 1, 64 - bits
    table_keys = [_EMPTY_KEY] * (mask + 1)
    table_rows = [-1] * (mask + 1)
    for row, key in enumerate(keys):
        slot = ((key * _GOLDEN) & _EMPTY_KEY) >> shift  # the same hash as _Engine._slot
        while table_keys[slot] != _EMPTY_KEY:
            slot = (slot + 1) & mask
        table_keys[slot], table_rows[slot] = key, row
    return np.array(table_keys, dtype=np.uint64), np.array(table_rows, dtype=np.int32)


def _ascii_tables(grams: list[str]) -> list[Any]:
    """Rows of the n-grams made of ASCII letters and spaces, indexed in base 53, per length."""
    import numpy as np

    symbol = {ch: i for i, ch in enumerate(_ASCII_ALPHABET)}
    rows = [np.full(_ASCII_SYMBOLS**size, -1, dtype=np.int32) for size in (1, 2, 3)]
    for row, gram in enumerate(grams):
        if all(ch in symbol for ch in gram):
            index = 0
            for ch in gram:
                index = index * _ASCII_SYMBOLS + symbol[ch]
            rows[len(gram) - 1][index] = row
    return rows


def _gram_key(gram: str) -> int:
    """21 bits a character, each code point + 1 (so 1-, 2- and 3-gram keys never collide)."""
    key = 0
    for ch in gram:
        key = (key << 21) | (ord(ch) + 1)
    return key


_SPACES = re.compile(" {2,}")
_LATIN = re.compile("[A-z]")

_ENGINE: _Engine | None = None
_ENGINE_LOCK = threading.Lock()


def engine() -> _Engine:
    global _ENGINE
    if _ENGINE is None:
        with _ENGINE_LOCK:
            if _ENGINE is None:
                _ENGINE = _Engine()
    return _ENGINE


def self_check() -> bool:
    """Whether the stream emulation reproduces Python's seeded ``gauss``/``choice`` sequence."""
    eng = engine()
    reference = random.Random(_SEED)
    pos = 0
    cached: float | None = None
    for n in (37, 1, 2, 1000, 513, 64, 3001):
        if cached is None:
            mine, cached = eng._gauss_pair(pos)
            pos += 4
        else:
            mine, cached = cached, None
        if mine != reference.gauss(0.0, 1.0):
            return False
        draws, word_pos = eng._draws(pos, n, 50)
        if [int(d) for d in draws] != [reference.choice(range(n)) for _ in range(50)]:
            return False
        pos = int(word_pos[-1]) + 1
    return True


def clear_text_memos() -> None:
    """Forget the per-character memos (benchmarks use this to measure unseen text)."""
    if _ENGINE is not None:
        _ENGINE.chars = _CharNormaliser(_ENGINE.normalize)
        _ENGINE.kinds = _CharKinds()


if __name__ == "__main__":  # build the tables' disk cache ahead of time (scripts/setup.sh)
    engine()
    print(langdetect_tables.cache_path())
