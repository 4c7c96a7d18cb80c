"""Step 08: the transcript grows without copying, and what a snapshot shows never changes."""
# ruff: noqa: RUF005 (a Transcript's `+` is what these tests are about)

import pytest

from pi.agent import Transcript
from pi.ai import UserMessage

STEP = 8


def said(*texts: str) -> tuple[UserMessage, ...]:
    return tuple(UserMessage(content=text, timestamp=number) for number, text in enumerate(texts))


def test_a_transcript_reads_like_the_tuple_of_its_messages() -> None:
    messages = said("a", "b", "c")
    transcript = Transcript(messages)
    assert transcript == messages and messages == transcript
    assert hash(transcript) == hash(messages)
    assert len(transcript) == 3 and list(transcript) == list(messages)
    assert transcript[0] is messages[0] and transcript[-1] is messages[2]
    assert transcript[1:] == messages[1:] and transcript[::-1] == messages[::-1]
    assert list(reversed(transcript)) == list(reversed(messages))
    assert messages[1] in transcript and transcript.index(messages[2]) == 2
    assert Transcript() == () and transcript != list(messages), "a tuple is not a list"
    for outside in (3, -4):
        with pytest.raises(IndexError):
            transcript[outside]


def test_adding_to_a_transcript_leaves_the_one_it_grew_from_as_it_was() -> None:
    a, b, c = said("a", "b", "c")
    first = Transcript([a])
    second = first + (b,)
    third = second + (c,)
    assert first == (a,) and second == (a, b) and third == (a, b, c)
    assert list(first) == [a] and list(reversed(second)) == [b, a] and first[-1] is a
    with pytest.raises(IndexError):
        first[1]


def test_adding_to_an_older_transcript_starts_a_history_of_its_own() -> None:
    a, b, c, d = said("a", "b", "c", "d")
    base = Transcript([a, b])
    newer = base + (c,)
    fork = base + (d,)  # `base` is no longer the newest: its messages are copied first
    assert base == (a, b) and newer == (a, b, c) and fork == (a, b, d)
    assert newer + (d,) == (a, b, c, d) and fork + (c,) == (a, b, d, c)
    assert newer == (a, b, c), "growing the fork did not touch the other branch"


def test_a_transcript_can_be_added_to_itself_and_any_sequence() -> None:
    a, b = said("a", "b")
    one = Transcript([a])
    assert one + one == (a, a) and one == (a,)
    assert Transcript() + [a, b] == (a, b) and Transcript([a]) + Transcript([b]) == (a, b)


def test_a_slice_of_a_transcript_is_the_tuple_the_messages_would_give() -> None:
    messages = said(*"abcdefg")
    transcript = Transcript(messages[:5]) + messages[5:]
    older = Transcript(messages[:5])
    for part in (slice(2, None), slice(None, -2), slice(-3, None), slice(1, 6, 2),
                 slice(None, None, -2), slice(10, 20), slice(6, 1, -1)):
        assert transcript[part] == messages[part], part
        assert older[part] == messages[:5][part], part
