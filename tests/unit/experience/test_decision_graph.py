import networkx as nx

from graphmem.experience.decision_graph import LabelVocabulary, action_sequence, build_decision_graph
from graphmem.experience.trajectories import Trajectory


def _trajectory(steps, initial="You are in the kitchen.", grammar="alfworld", reward=0.0):
    return Trajectory(task_id="t", query="put a clean apple on the table", initial_observation=initial,
                      steps=[{"action": a, "observation": o} for a, o in steps], reward=reward,
                      grammar=grammar, kind="exploration")


def test_appendix_a_example():
    # a2, a3 are invalid under o1 ("Nothing happens."), a4 valid under o1; a7 repeats a4's action
    trajectory = _trajectory([
        ("go to countertop 1", "On the countertop 1, you see an apple 1."),   # a1 -> o1
        ("take knife 1 from countertop 1", "Nothing happens."),               # a2 -> o2 invalid
        ("open countertop 1", "Nothing happens."),                            # a3 -> o3 invalid
        ("take apple 1 from countertop 1", "You pick up the apple 1 from the countertop 1."),  # a4
        ("go to sinkbasin 1", "On the sinkbasin 1, you see nothing."),        # a5
        ("put apple 1 in/on sinkbasin 1", "You put the apple 1 in/on the sinkbasin 1."),  # a6 -> o6
        ("take apple 1 from countertop 1", "You pick up the apple 1."),       # a7 == a4 (reuse)
    ])
    g = build_decision_graph(trajectory)
    keys = {d["key"]: n for n, d in g.nodes(data=True)}
    assert g.nodes[0]["key"] == "INIT" and g.nodes[0]["label"] == 0
    assert g.number_of_nodes() == 1 + 6  # INIT + a1..a6 (a7 reuses a4)
    a1, a2, a3, a4 = (keys[k] for k in ("go countertop", "take knife -> countertop",
                                         "open countertop", "take apple -> countertop"))
    a6 = keys["put apple -> sinkbasin"]
    # invalid a2, a3 and valid a4 all hang from a1 with the same edge label (o1)
    labels = {g.edges[a1, v]["label"] for v in (a2, a3, a4)}
    assert len(labels) == 1
    assert g.edges[a1, a2]["observation"] == "on countertop you see apple"
    assert g.out_degree(a2) == 0 and g.out_degree(a3) == 0
    # node reuse: a7 is a4's node, entered from a6 under o6
    assert g.has_edge(a6, a4)
    assert g.edges[a6, a4]["observation"] == "you put apple in on sinkbasin"
    assert g.in_degree(a4) == 2
    assert g.edges[0, a1]["observation"] == "you are in kitchen"
    # integer labels, distinct per distinct content
    assert all(isinstance(d["label"], int) for _, d in g.nodes(data=True))
    assert all(isinstance(d["label"], int) and d["label"] > 0 for *_, d in g.edges(data=True))
    assert len({d["label"] for _, d in g.nodes(data=True)}) == g.number_of_nodes()
    assert g.graph["reward"] == 0.0 and g.graph["query"].startswith("put")


def test_shared_vocabulary_gives_equal_labels_across_graphs():
    vocab = LabelVocabulary()
    g1 = build_decision_graph(_trajectory([("go to desk 1", "On the desk 1, you see a pen 1.")]), vocab)
    g2 = build_decision_graph(_trajectory([("go to desk 2", "On the desk 2, you see a pen 3.")]), vocab)
    assert g1.nodes[1]["label"] == g2.nodes[1]["label"]
    assert g1.edges[0, 1]["label"] == g2.edges[0, 1]["label"]


def test_repeated_valid_action_is_a_self_loop_and_sequence():
    trajectory = _trajectory([("wait1", "You decide to wait for 1 iterations."),
                              ("wait1", "You decide to wait for 1 iterations.")], grammar="scienceworld")
    g = build_decision_graph(trajectory)
    assert g.number_of_nodes() == 2 and g.has_edge(1, 1)
    seq = action_sequence(trajectory)
    assert [s[1] for s in seq] == ["wait", "wait"]
    assert seq[1][0] == "you decide to wait for iterations"
    assert isinstance(g, nx.DiGraph)
