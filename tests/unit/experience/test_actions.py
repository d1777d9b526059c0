from graphmem.errors import TrajectoryError
from graphmem.experience.actions import (
    ActionKey,
    is_valid_observation,
    normalize_action,
    normalize_observation,
)
import pytest


@pytest.mark.parametrize("raw,expected", [
    ("take apple 1 from table 2", ActionKey("take", "apple", "table")),
    ("put candle 2 in/on drawer 1", ActionKey("put", "candle", "drawer")),
    ("go to toilet 1", ActionKey("go", "toilet", "")),
    ("heat egg 1 with microwave 1", ActionKey("heat", "egg", "microwave")),
    ("open drawer 3", ActionKey("open", "drawer", "")),
    ("look", ActionKey("look", "", "")),
])
def test_alfworld_grammar(raw, expected):
    assert normalize_action(raw, "alfworld") == expected


@pytest.mark.parametrize("raw,expected", [
    ("pick up metal pot containing nothing in kitchen", ActionKey("pick", "metal pot", "")),
    ("move metal pot to blue box", ActionKey("move", "metal pot", "blue box")),
    ("pour jug into flower pot 2", ActionKey("pour", "jug", "flower pot")),
    ("use thermometer in inventory on ice", ActionKey("use", "thermometer", "ice")),
    ("connect battery anode to orange wire terminal 1",
     ActionKey("connect", "battery anode", "orange wire terminal")),
    ("focus on thermometer in inventory", ActionKey("focus", "thermometer", "")),
    ("look around", ActionKey("look", "", "")),
    ("wait1", ActionKey("wait", "", "")),
    ("0", ActionKey("choose", "0", "")),
    ("open door to greenhouse", ActionKey("open", "door to greenhouse", "")),
])
def test_scienceworld_grammar(raw, expected):
    assert normalize_action(raw, "scienceworld") == expected


def test_unknown_verb_falls_back_and_key_text():
    key = normalize_action("Juggle three balls", "generic")
    assert key == ActionKey("juggle", "three balls", "")
    assert ActionKey("take", "apple", "table").text() == "take apple -> table"


def test_empty_action_is_a_trajectory_error():
    with pytest.raises(TrajectoryError, match="non-empty"):
        normalize_action("   ")


def test_observations():
    assert not is_valid_observation("Nothing happens.")
    assert not is_valid_observation("No known action matches that input.")
    assert not is_valid_observation("The door is already open.")
    assert not is_valid_observation("")
    assert is_valid_observation("You pick up the apple 1 from the table 1.")
    assert normalize_observation("You pick up the apple 1 from the table 1.") == "you pick up apple from table"
    room = "This room is called the kitchen. In it, you see: \n\tthe agent\n\ta table"
    assert normalize_observation(room) == "room kitchen"
    assert normalize_observation("On the toilet 1, you see a candle 2, a candle 1.") == "on toilet you see candle candle"
