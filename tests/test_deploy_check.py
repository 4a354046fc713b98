"""deploy/check.py against a real `streamlit run` that asks for the staff passphrase
(ATTNVIZ_STAFF_PASSPHRASE): without it the check says what to give, with it the room opens,
two phones answer and the count reads back (one server: its tabs name no replica)."""

import asyncio
import importlib.util

import pytest

from tools.browser import ROOT, streamlit_server
from tools.streamlit_client import StalledError

PASSPHRASE = "correct horse battery"
TIMEOUT = 180  # s: a page's run on a loaded machine; generous, never a result


def deploy_check():
    spec = importlib.util.spec_from_file_location("deploy_check", ROOT / "deploy" / "check.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_check_opens_a_room_with_the_staff_passphrase(monkeypatch, capsys):
    check = deploy_check().check
    monkeypatch.setenv("ATTNVIZ_STAFF_PASSPHRASE", PASSPHRASE)  # the server's environment
    with streamlit_server() as url:
        with pytest.raises(StalledError, match="asks for the staff passphrase"):
            asyncio.run(check(url, TIMEOUT, False))
        assert asyncio.run(check(url, TIMEOUT, False, PASSPHRASE)) == [None, None]
    said = capsys.readouterr().out
    assert "4. the lecturer's count reads back: Answered 2 of 2" in said
