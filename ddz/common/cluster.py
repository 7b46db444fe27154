"""The connection to a Ray cluster, shared by ``ddz eval --backend ray`` (the arena's tasks:
:mod:`ddz.arena.ray_backend`), ``ddz train --backend ray`` and the training benchmark.

Ray comes with the cluster extra (``pip install 'ddz[cluster]'``) and is imported only when a
function here is called, so this module imports without it.
"""

from __future__ import annotations

import ipaddress
import logging
import socket
from contextlib import contextmanager

from ddz.common import available_cores

INSTALL = "pip install 'ddz[cluster]'"


class ClusterError(RuntimeError):
    """Ray is missing or the cluster cannot be reached (a one-line message for the user)."""


def import_ray():
    """The ``ray`` module, or :class:`ClusterError` naming the extra to install."""
    try:
        import ray
    except ImportError:
        raise ClusterError(f"--backend ray needs Ray: {INSTALL}") from None
    return ray


def connect(address: str = "", cpus: int = 0) -> bool:
    """Join the Ray cluster at ``address`` (``auto``: the one running on this host; or
    ``HOST:PORT``), or with no address start a Ray instance on this host with at least
    ``cpus`` CPUs (no dashboard). Does nothing if Ray is already initialised in this process.
    Returns whether it initialised Ray (then :func:`disconnect` shuts it down).
    Raises :class:`ClusterError` if the address is malformed (checked first, before Ray is
    imported), Ray is missing or the cluster cannot be reached. Ray's own log stays quiet while
    it connects (its failures become the one-line error) and shows warnings afterwards."""
    check_address(address)
    ray = import_ray()
    if ray.is_initialized():
        return False
    _check_reachable(address)
    try:
        if address:
            ray.init(address=address, logging_level=logging.CRITICAL)
        else:
            ray.init(
                address="local",
                num_cpus=max(available_cores(), cpus),
                include_dashboard=False,
                logging_level=logging.CRITICAL,
            )
    except Exception as exc:  # ConnectionError, ValueError, RuntimeError, ... from Ray
        where = f"at {address}" if address else "on this host"
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ClusterError(f"cannot start or join the Ray cluster {where}: {message}") from None
    logging.getLogger("ray").setLevel(logging.WARNING)
    return True


#: The addresses that Ray resolves itself: the cluster on this host, or a new local one.
RAY_WORDS = ("auto", "local")


def check_address(address: str) -> None:
    """``address`` must be empty, ``auto``, ``local``, or ``[ray://]HOST:PORT`` with a host
    name or IP address (IPv6 in brackets) and a port from 1 to 65535; else
    :class:`ClusterError` says what is wrong. Nothing is imported or contacted."""
    if address in ("", *RAY_WORDS):
        return
    rest = address.removeprefix("ray://")
    host, sep, port = rest.rpartition(":")
    shown = repr(address if len(address) <= 80 else address[:79] + "…")
    problem = None
    if not sep:
        problem = "no :PORT"
    elif not (port.isascii() and port.isdigit()) or not 1 <= int(port) <= 65535:
        problem = "the port must be a number from 1 to 65535"
    elif not host:
        problem = "no host before the port"
    elif not _valid_host(host):
        problem = f"{host!r} is not a host name or an IP address"
    if problem is not None:
        raise ClusterError(
            f"bad --ray-address {shown}: {problem} (give HOST:PORT, ray://HOST:PORT or auto)"
        )


def _valid_host(host: str) -> bool:
    if host.startswith("[") and host.endswith("]"):  # [IPv6]
        try:
            return ipaddress.ip_address(host[1:-1]).version == 6
        except ValueError:
            return False
    if ":" in host or any(c.isspace() for c in host):
        return False
    try:
        host.encode("idna")  # empty labels (a..b), labels over 63 characters, ...
    except UnicodeError:
        return False
    return True


def _check_reachable(address: str, timeout: float = 5.0) -> None:
    """A ``HOST:PORT`` address must answer a TCP connection within ``timeout`` seconds; Ray
    itself would retry for minutes before giving up. ``auto``, ``local`` and ``ray://``
    addresses are left to Ray."""
    host, sep, port = address.rpartition(":")
    if not sep or not host or "://" in address:
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as exc:
        raise ClusterError(
            f"cannot join the Ray cluster at {address}: nothing answers there ({exc.strerror or exc}); "
            "start the head node with 'ray start --head' or check the address"
        ) from None


def disconnect(started: bool) -> None:
    if started:
        import_ray().shutdown()


@contextmanager
def cluster(address: str = "", cpus: int = 0):
    """:func:`connect` for the duration of a ``with`` block (shut down if it started Ray)."""
    started = connect(address, cpus)
    try:
        yield import_ray()
    finally:
        disconnect(started)


def portable(agent, spec: str):
    """``agent`` itself if it can travel to other processes (it pickles: its state, e.g. a
    model read from a file here, goes with it), else its ``spec``, built again there."""
    import pickle

    try:
        pickle.dumps(agent)
    except Exception:  # e.g. a bot that talks to a process of its own
        return spec
    return agent


def cluster_cpus() -> int:
    """CPUs of the connected cluster (at least 1)."""
    return max(1, int(import_ray().cluster_resources().get("CPU", 1)))
