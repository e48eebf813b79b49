"""The HTTP API of ``uno-env serve`` through FastAPI's test client: games, records, errors."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

from fastapi.testclient import TestClient  # noqa: E402

from uno_env import Rules  # noqa: E402
from uno_env.cli import build_parser  # noqa: E402
from uno_env.evaluation.tournament import tournament  # noqa: E402
from uno_env.records import GameRecord, Recorder, load_record, save_record  # noqa: E402
from uno_env.web.app import create_app  # noqa: E402
from uno_env.web.server import bind  # noqa: E402


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return tmp_path / "records"


@pytest.fixture
def client(folder: Path) -> TestClient:
    return TestClient(create_app(folder))


def _start(client: TestClient, **body: object) -> dict:
    response = client.post("/api/games", json={"players": 2, "agents": ["random_play"],
                                               "seed": 7, **body})
    assert response.status_code == 200, response.text
    return response.json()


def _play_out(client: TestClient, game: dict, pick: random.Random,
              seen: dict[str, set[str]] | None = None) -> dict:
    """Play ``game`` to its end: the person picks a random legal play when there is one,
    else a random legal action; ``seen`` collects the labels offered in each phase."""
    for _ in range(3000):
        if game["done"]:
            return game
        if game["waiting_for"] == "you":
            assert game["legal"], "the person is to act: the legal actions are listed"
            if seen is not None:
                seen.setdefault(game["phase"], set()).update(a["label"] for a in game["legal"])
            plays = [a for a in game["legal"] if a["card"]]
            action = pick.choice(plays or game["legal"])["id"]
            response = client.post(f"/api/games/{game['id']}/actions", json={"action": action})
        else:
            assert game["legal"] == []
            response = client.post(f"/api/games/{game['id']}/advance")
        assert response.status_code == 200, response.text
        game = response.json()
    raise AssertionError("the game did not end")


def test_the_page_and_its_scripts_are_served(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and "<title>uno-env</title>" in page.text
    for name in ("table.js", "app.js", "table.css", "page.css"):
        assert client.get(f"/static/{name}").status_code == 200, name
    options = client.get("/api/options").json()
    assert "official" in options["presets"] and options["max_players"] == 10


def test_a_game_shows_what_the_person_may_see(client: TestClient) -> None:
    game = _start(client, players=4, seat=2, agents=["greedy"])
    assert game["names"][2] == "you" and game["seat"] == 2
    assert [h is not None for h in game["hands"]] == [False, False, True, False]
    assert len(game["hands"][2]) == game["hand_sizes"][2]
    for key in ("top", "color", "direction", "pending", "acting", "scores", "log", "phase"):
        assert key in game, key


def test_a_person_plays_a_whole_game_to_its_end(client: TestClient, folder: Path) -> None:
    game = _play_out(client, _start(client), random.Random(1))
    assert game["status"].startswith("game over")
    assert any(line.startswith("you: ") for line in game["log"])
    assert game["log"][-1].startswith("-- ")
    refused = client.post(f"/api/games/{game['id']}/advance")
    assert refused.status_code == 409 and "over" in refused.json()["error"]
    name = client.post(f"/api/games/{game['id']}/record").json()["name"]
    record = load_record(folder / name)
    assert record.seats == ("you", "random_play") and len(record.actions) == game["decisions"]


#: Deals on which the person meets the special decisions (the games are fixed by the seed).
SPECIAL = [
    ("computer", 3, 1, {"respond": "take the", "choose_target": "swap hands with",
                        "react": "let it go"}),         # stacking, 7-0, jump-in
    ("house_dobon", 3, 0, {"multi": "end the play"}),   # multi-card plays
    ("no_mercy", 2, 3, {}),
    ("federation", 5, 3, {}),
    ("teams", 4, 0, {}),
]


@pytest.mark.parametrize("preset, players, seed, phases", SPECIAL)
def test_special_rules_decisions_are_offered_and_taken(client: TestClient, preset: str,
                                                       players: int, seed: int,
                                                       phases: dict[str, str]) -> None:
    """Stack answers, 7-0 swaps, jump-ins and multi-card plays: every decision the engine
    offers the person is a listed action with a label, and the server takes it."""
    game = _start(client, preset=preset, players=players, agents=["greedy"], seed=seed)
    seen: dict[str, set[str]] = {}
    game = _play_out(client, game, random.Random(seed), seen)
    if preset == "teams" and game["winner"] >= 0:    # partners win together
        assert " and " in game["status"] and game["status"].endswith(" win")
    for phase, label in phases.items():
        assert phase in seen, f"{preset}: the person never met phase {phase}: {sorted(seen)}"
        assert any(text.startswith(label) for text in seen[phase]), (phase, seen[phase])


def test_an_illegal_action_is_refused_and_changes_nothing(client: TestClient) -> None:
    game = _start(client, seed=11)
    while game["waiting_for"] != "you":
        game = client.post(f"/api/games/{game['id']}/advance").json()
    legal = {a["id"] for a in game["legal"]}
    illegal = next(a for a in range(119) if a not in legal)
    before = client.get(f"/api/games/{game['id']}").json()
    response = client.post(f"/api/games/{game['id']}/actions", json={"action": illegal})
    assert response.status_code == 409
    assert "is not legal now; legal:" in response.json()["error"]
    assert client.get(f"/api/games/{game['id']}").json() == before
    early = client.post(f"/api/games/{game['id']}/advance")
    assert early.status_code == 409 and "your turn" in early.json()["error"]
    by_name = client.post(f"/api/games/{game['id']}/actions",
                          json={"action": game["legal"][0]["name"]})
    assert by_name.status_code == 200


@pytest.mark.parametrize("body, message", [
    ({"players": 11}, "players"),
    ({"players": "two"}, "players"),
    ({"preset": "chess"}, "unknown preset 'chess'"),
    ({"seat": 5}, "seat 5 is not a seat 0-1"),
    ({"agents": ["nobody"]}, "unknown agent 'nobody'"),
    ({"agents": ["greedy,greedy,greedy"]}, "1 agent seats need 1 specs"),
    ({"agents": ["ppo:../../secret.zip"]}, "names a file"),
    ({"agents": ["net:model.pt"]}, "names a file"),
    ({"colour": "red"}, "colour"),
])
def test_a_bad_new_game_is_refused_naming_what_is_wrong(client: TestClient, body: dict,
                                                        message: str) -> None:
    response = client.post("/api/games", json={"players": 2, **body})
    assert response.status_code == 400
    assert message in response.json()["error"]


def test_malformed_requests_get_a_clear_error(client: TestClient) -> None:
    game = _start(client)
    url = f"/api/games/{game['id']}/actions"
    for body, message in ((b"{", "malformed request"), (b'{"move": 3}', "action"),
                          (b'{"action": 999}', "out of range"),
                          (b'{"action": "fly"}', "unknown action 'fly'"),
                          (b'{"action": true}', "action")):
        response = client.post(url, content=body, headers={"Content-Type": "application/json"})
        assert response.status_code in (400, 409), body
        assert message in response.json()["error"], (body, response.json())
    assert client.get(f"/api/games/{game['id']}").json() == game
    assert client.get("/api/nothing").json()["error"].startswith("GET /api/nothing")


def test_a_stale_game_id_is_named(client: TestClient) -> None:
    game = _start(client)
    assert client.delete(f"/api/games/{game['id']}").status_code == 200
    for method, path in (("GET", ""), ("POST", "/advance"), ("POST", "/record")):
        response = client.request(method, f"/api/games/{game['id']}{path}")
        assert response.status_code == 404
        assert f"no game {game['id']!r}" in response.json()["error"]


def test_several_games_at_once_are_separate(client: TestClient) -> None:
    a = _start(client, seed=1, seat=None, agents=["greedy"])
    b = _start(client, seed=1, seat=None, agents=["greedy"])
    c = _start(client, seed=2, seat=None, agents=["greedy"])
    assert len({a["id"], b["id"], c["id"]}) == 3
    assert a["hands"] == b["hands"] and a["hands"] != c["hands"]
    for _ in range(5):
        a = client.post(f"/api/games/{a['id']}/advance").json()
    assert len(a["log"]) >= 5 and client.get(f"/api/games/{b['id']}").json()["log"] == []


def test_watching_shows_every_hand_and_takes_no_action(client: TestClient) -> None:
    game = _start(client, seat=None, players=3, agents=["greedy"])
    assert all(h is not None for h in game["hands"]) and game["legal"] == []
    response = client.post(f"/api/games/{game['id']}/actions", json={"action": 100})
    assert response.status_code == 409 and "watching" in response.json()["error"]


def _saved_tournament_record(folder: Path) -> str:
    rules = Rules.preset("official", num_players=3)
    recorder = Recorder([0])
    tournament(["greedy", "random_play", "tuned"], rules, 3, recorder=recorder)
    folder.mkdir(parents=True, exist_ok=True)
    save_record(recorder.records(rules, "official")[0], folder / "t-000.json")
    return "t-000.json"


def test_a_record_is_replayed_frame_by_frame(client: TestClient, folder: Path) -> None:
    name = _saved_tournament_record(folder)
    listed = client.get("/api/records").json()["records"]
    assert [r["name"] for r in listed] == [name] and listed[0]["players"] == 3
    everything = client.get(f"/api/records/{name}").json()
    frames = everything["frames"]
    record = load_record(folder / name)
    assert len(frames) == len(record.actions) + 1
    assert all(f["next"] for f in frames[:-1]) and "next" not in frames[-1]
    assert frames[-1]["done"] and all(h is not None for h in frames[0]["hands"])
    seat1 = client.get(f"/api/records/{name}?viewer=1").json()["frames"]
    assert [h is not None for h in seat1[0]["hands"]] == [False, True, False]
    assert seat1[0]["hands"][1] == frames[0]["hands"][1]
    bad = client.get(f"/api/records/{name}?viewer=3")
    assert bad.status_code == 400 and "viewer 3" in bad.json()["error"]
    missing = client.get("/api/records/missing.json")
    assert missing.status_code == 404 and "no record 'missing.json'" in missing.json()["error"]


@pytest.mark.parametrize("name", ["..%2F..%2Fetc%2Fpasswd", "%2Fetc%2Fpasswd.json",
                                  "..json", "a%5Cb.json", "secret.txt", ".hidden.json"])
def test_nothing_outside_the_records_folder_is_read(client: TestClient, tmp_path: Path,
                                                    name: str) -> None:
    (tmp_path / "secret.txt").write_text("hidden words")
    (tmp_path / "outside.json").write_text(json.dumps(GameRecord(
        Rules(num_players=2), 1, (), ("a", "b")).to_dict()))
    response = client.get(f"/api/records/{name}")
    assert response.status_code in (400, 404)
    assert "error" in response.json() and "hidden words" not in response.text
    assert client.get("/api/records/..%2Foutside.json").status_code in (400, 404)


def test_saved_records_survive_a_restart(folder: Path) -> None:
    first = TestClient(create_app(folder))
    game = _start(first)
    name = first.post(f"/api/games/{game['id']}/record").json()["name"]
    again = TestClient(create_app(folder))       # a new server on the same folder
    assert [r["name"] for r in again.get("/api/records").json()["records"]] == [name]
    assert again.get(f"/api/records/{name}").status_code == 200
    assert again.get(f"/api/games/{game['id']}").status_code == 404


def test_serve_is_a_command_on_a_local_address() -> None:
    args = build_parser().parse_args(["serve", "--port", "0"])
    assert args.port == 0 and args.records
    sock = bind(0)
    try:
        host, port = sock.getsockname()
        assert host == "127.0.0.1" and port > 0
        with pytest.raises(OSError, match="choose another --port"):
            bind(port)
    finally:
        sock.close()


def test_serve_prints_its_local_address(folder: Path, monkeypatch, capsys) -> None:
    import uvicorn

    from uno_env.cli import main

    started = []
    monkeypatch.setattr(uvicorn.Server, "run",
                        lambda self, sockets: started.append(sockets[0].getsockname()))
    assert main(["serve", "--port", "0", "--records", str(folder)]) == 0
    (address,) = started
    assert address[0] == "127.0.0.1"
    assert f"open http://127.0.0.1:{address[1]} " in capsys.readouterr().out
    assert folder.is_dir()
