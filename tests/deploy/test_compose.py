"""deploy/: the compose file and the nginx config, checked without Docker (Docker cannot run here)."""

import re

import pytest
import yaml

from deploy.cluster import CONFIG, HERE, local_config

COMPOSE = HERE / "docker-compose.yml"


@pytest.fixture(scope="module")
def compose():
    return yaml.safe_load(COMPOSE.read_text())


def test_the_services_are_a_database_replicas_and_nginx(compose):
    services = compose["services"]
    assert set(services) == {"db", "app1", "app2", "nginx"}
    assert all("healthcheck" in s and s["healthcheck"]["test"] for s in services.values())
    assert services["db"]["image"].startswith("postgres:")
    assert services["nginx"]["depends_on"] == {"app1": {"condition": "service_healthy"},
                                              "app2": {"condition": "service_healthy"}}
    assert "./nginx.conf:/etc/nginx/nginx.conf:ro" in services["nginx"]["volumes"]
    for name in ("app1", "app2"):
        assert services[name]["depends_on"] == {"db": {"condition": "service_healthy"}}
        assert services[name]["build"]["context"] == ".."


def test_the_replicas_share_one_database_passed_by_environment(compose):
    urls = {compose["services"][name]["environment"]["STUDY_DATABASE_URL"] for name in ("app1", "app2")}
    assert len(urls) == 1
    (url,) = urls
    assert url.startswith("postgresql+psycopg://") and url.endswith("@db:5432/paperlab")


def test_no_secret_is_written_in_the_file(compose):
    secrets = {}
    for name, service in compose["services"].items():
        for key, value in (service.get("environment") or {}).items():
            if re.search(r"PASSWORD|SECRET", key):
                secrets[f"{name}.{key}"] = value
    assert secrets and all(re.fullmatch(r"\$\{[A-Z_]+:\?[^}]+\}", v) for v in secrets.values()), secrets
    url = compose["services"]["app1"]["environment"]["STUDY_DATABASE_URL"]
    assert re.search(r"paperlab:\$\{POSTGRES_PASSWORD:\?[^}]+\}@", url)   # the password is a variable there too


def test_the_nginx_config_keeps_a_browser_on_one_process_and_its_websocket_open():
    text = CONFIG.read_text()
    assert re.search(r"hash \$paperlab_route consistent;", text)
    assert "proxy_set_header Upgrade $http_upgrade;" in text and "proxy_http_version 1.1;" in text
    assert re.search(r"Set-Cookie \"paperlab_route=\$paperlab_route;", text)
    assert len(re.findall(r"server app\d:8501 .*# paperlab: app server", text)) == 2


def test_the_local_config_changes_only_the_marked_lines():
    text = local_config([9001, 9002, 9003], 8088)
    assert re.findall(r"server (127\.0\.0\.1:\d+)", text) == ["127.0.0.1:9001", "127.0.0.1:9002", "127.0.0.1:9003"]
    assert "listen 127.0.0.1:8088;" in text and not re.search(r"server app\d", text)
    original = [line for line in CONFIG.read_text().splitlines() if "paperlab:" not in line]
    assert [line for line in text.splitlines() if "paperlab:" not in line] == original
    assert "X-Paperlab-Upstream" not in text and "X-Paperlab-Upstream" in local_config([9001], 8088, True)
    with pytest.raises(ValueError, match="^app_ports: empty"):
        local_config([], 8088)


def test_the_replicas_read_the_visitor_address_from_nginx_only(compose):
    """Behind nginx every connection comes from the proxy: the admin back-off must count the visitor's address."""
    import ipaddress

    from core.interestingness.safety import client_address, trusted_proxies

    for name in ("app1", "app2"):
        networks = trusted_proxies(compose["services"][name]["environment"]["STUDY_TRUSTED_PROXIES"])
        assert networks and all(n.is_private for n in networks)
        assert client_address("172.18.0.5", "203.0.113.9", networks) == "203.0.113.9"     # nginx on compose's network
        assert client_address("203.0.113.7", "198.51.100.1", networks) == "203.0.113.7"   # no one else is believed
        assert not any(ipaddress.ip_address("203.0.113.7") in n for n in networks)
    assert "proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;" in CONFIG.read_text()
