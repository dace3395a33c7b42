"""Does a response start with a verb? An offline stand-in for NLTK's part-of-speech tagger.

The reference tags the first token with NLTK's averaged-perceptron tagger, whose model is
not available offline. Responses that "start with a verb" start with an imperative or an
auxiliary in practice, so a lexicon of common English verbs (base forms, the inflections of
the auxiliaries) plus the ``-ing``/``-ed`` shapes that the tagger reads as verbs covers them, with the next word
deciding for base forms as the tagger's context features do.
"""

from __future__ import annotations

from collections.abc import Sequence

_AUXILIARIES = frozenset(
    "be am is are was were been being do does did done doing have has had having "
    "isn't aren't wasn't weren't don't doesn't didn't haven't hasn't hadn't "
    "let let's".split()
)
_BASE_VERBS = frozenset(
    """
    accept achieve act add address adjust admire adopt advise agree aim allow analyze analyse answer
    apply appreciate approach argue arrange ask assess assume attach attempt avoid bake balance bear
    beat become begin believe blend boil book borrow break breathe bring build buy calculate call
    calm care carry catch celebrate change check choose chop claim clarify clean clear climb close
    collect combine come compare compile complete compose concentrate conclude connect consider
    contact continue contribute convert cook copy count cover craft create cut dance deal debate
    decide declare define delete deliver demonstrate describe design determine develop dig discover
    discuss dive divide draft draw dream dress drink drive drop eat edit eliminate embrace emphasize
    enable encourage end engage enjoy ensure enter establish estimate evaluate examine expand expect
    experience explain explore express extend face fall feel fight figure fill find finish fix
    fly focus fold follow forget forgive form formulate gather generate get give go grab grant grow
    guess guide handle hang hear help highlight hire hold hope identify ignore illustrate imagine
    implement improve include increase indicate inform insert inspire install integrate introduce
    invest invite join jump keep kick know label launch lay lead learn leave lend let lie lift light
    like limit list listen live look lose love maintain make manage map mark master measure meet
    memorize mention mix monitor move name navigate need note notice observe obtain offer open
    order organize outline own paint participate pass pay perform pick place plan plant play point
    pour practice practise prepare present preserve press prevent print prioritize proceed produce
    promote protect prove provide pull purchase push put question raise reach read realize receive
    recognize recommend record reduce reflect refuse register relax release remember remind remove
    repeat replace reply report request research reserve resolve respect respond rest restore
    return review revise rewrite ride rinse rise roll run save say schedule search see seek select
    sell send serve set settle share shift show shut sign simplify sing sit sketch skip sleep slice
    slow smile solve sort speak spend split spread stand start stay step stick stop store stretch
    strive study submit suggest summarize support suppose surround swim take talk taste teach tell
    test thank think throw track train transform translate travel treat try turn type understand
    update upgrade use validate verify view visit visualize wait wake walk want warm wash watch
    wear welcome win wish work worry wrap write
    """.split()
)


_ING_NOUNS = frozenset(
    "thing nothing something anything everything morning evening ceiling building spring string "
    "king ring wedding pudding darling feeling meeting painting beginning ending setting".split()
)
# The tagger reads a sentence-initial base form as a verb mainly when a determiner, pronoun or
# preposition follows it ("Prove that ...", "Identify the ..."); before an adjective or a name
# ("Build resilient ...", "Understand Galois ...") it reads a noun.
_VERB_CONTEXT = frozenset(
    """
    the a an that this these those your my our their his her its it me us them him you each every
    all some any both up out down off away back to on in at with for about into over through how
    what why whether if which who when where
    """.split()
)


def starts_with_verb(tokens: Sequence[str]) -> bool:
    first = tokens[0].lower()
    if first in _AUXILIARIES:
        return True
    if first in _BASE_VERBS:
        return len(tokens) > 1 and tokens[1].lower() in _VERB_CONTEXT
    # Capitalised "-ing"/"-ed" words at the start are tagged VBG/VBN/VBD far more often than not.
    if first in _ING_NOUNS:
        return False
    return first.isalpha() and len(first) > 4 and first.endswith(("ing", "ed"))
