#!/usr/bin/env python3
"""Adds one layer to an OCI image archive (as hack/imagebuild writes them) and
sets the image's config: what hack/imagebuild does not do, and the stand-in
CWAC image needs to be laid out like CWAC's real one (symbolic links, a
directory owned by uid 1000 with mode 700, VOLUME, CMD with no entrypoint).

  oci-layer.py ARCHIVE [--dir PATH:UID:GID:MODE]... [--file PATH:UID:GID:MODE:HOSTFILE]...
               [--symlink PATH:TARGET]... [--volume PATH]... [--cmd JSON-LIST]
               [--no-entrypoint] [--env NAME=VALUE]...

The archive is rewritten in place; nothing else is read from the host.
Standard library only.
"""
import argparse
import gzip
import hashlib
import io
import json
import os
import shutil
import tarfile
import tempfile


def sha256(data):
    return "sha256:" + hashlib.sha256(data).hexdigest()


def layer(args):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        entries = []
        for spec in args.dir:
            path, uid, gid, mode = spec.split(":")
            info = tarfile.TarInfo(path.lstrip("/") + "/")
            info.type, info.uid, info.gid, info.mode = tarfile.DIRTYPE, int(uid), int(gid), int(mode, 8)
            entries.append((info, None))
        for spec in args.file:
            path, uid, gid, mode, host = spec.split(":", 4)
            with open(host, "rb") as f:
                data = f.read()
            info = tarfile.TarInfo(path.lstrip("/"))
            info.uid, info.gid, info.mode, info.size = int(uid), int(gid), int(mode, 8), len(data)
            entries.append((info, data))
        for spec in args.symlink:
            path, target = spec.split(":", 1)
            info = tarfile.TarInfo(path.lstrip("/"))
            info.type, info.linkname, info.mode = tarfile.SYMTYPE, target, 0o777
            entries.append((info, None))
        for info, data in sorted(entries, key=lambda e: e[0].name):
            info.mtime = 0
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    raw = buf.getvalue()
    gz = io.BytesIO()
    with gzip.GzipFile(fileobj=gz, mode="wb", mtime=0) as z:
        z.write(raw)
    return raw, gz.getvalue()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("archive")
    p.add_argument("--dir", action="append", default=[])
    p.add_argument("--file", action="append", default=[])
    p.add_argument("--symlink", action="append", default=[])
    p.add_argument("--volume", action="append", default=[])
    p.add_argument("--env", action="append", default=[])
    p.add_argument("--cmd")
    p.add_argument("--no-entrypoint", action="store_true")
    args = p.parse_args()

    work = tempfile.mkdtemp()
    try:
        with tarfile.open(args.archive) as t:
            if hasattr(tarfile, "data_filter"):
                t.extractall(work, filter="data")
            else:  # our own archive, from hack/imagebuild
                t.extractall(work)
        blobs = os.path.join(work, "blobs", "sha256")

        def read(digest):
            with open(os.path.join(blobs, digest.split(":", 1)[1]), "rb") as f:
                return f.read()

        def write(data):
            digest = sha256(data)
            with open(os.path.join(blobs, digest.split(":", 1)[1]), "wb") as f:
                f.write(data)
            return digest

        with open(os.path.join(work, "index.json")) as f:
            index = json.load(f)
        if len(index["manifests"]) != 1:
            raise SystemExit("oci-layer: want an archive of one image")
        desc = index["manifests"][0]
        manifest = json.loads(read(desc["digest"]))
        config = json.loads(read(manifest["config"]["digest"]))

        raw, gz = layer(args)
        manifest["layers"].append({"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip", "digest": write(gz), "size": len(gz)})
        config["rootfs"]["diff_ids"].append(sha256(raw))
        c = config.setdefault("config", {})
        if args.volume:
            c["Volumes"] = {v: {} for v in args.volume}
        if args.cmd:
            c["Cmd"] = json.loads(args.cmd)
        if args.no_entrypoint:
            c.pop("Entrypoint", None)
        env = [e for e in c.get("Env", []) if e.split("=", 1)[0] not in {a.split("=", 1)[0] for a in args.env}]
        c["Env"] = env + args.env
        config_data = json.dumps(config, separators=(",", ":")).encode()
        manifest["config"]["digest"], manifest["config"]["size"] = write(config_data), len(config_data)
        manifest_data = json.dumps(manifest, separators=(",", ":")).encode()
        desc["digest"], desc["size"] = write(manifest_data), len(manifest_data)
        with open(os.path.join(work, "index.json"), "w") as f:
            json.dump(index, f, separators=(",", ":"))
        # Drop blobs nothing refers to any more (the old config and manifest).
        used = {desc["digest"], manifest["config"]["digest"]} | {l["digest"] for l in manifest["layers"]}
        for name in os.listdir(blobs):
            if "sha256:" + name not in used:
                os.remove(os.path.join(blobs, name))

        tmp = args.archive + ".tmp"
        with tarfile.open(tmp, "w", format=tarfile.PAX_FORMAT) as out:
            for root, dirs, files in os.walk(work):
                dirs.sort()
                for name in sorted(dirs) + sorted(files):
                    full = os.path.join(root, name)
                    info = out.gettarinfo(full, os.path.relpath(full, work))
                    info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
                    if info.isfile():
                        with open(full, "rb") as f:
                            out.addfile(info, f)
                    else:
                        out.addfile(info)
        os.replace(tmp, args.archive)
    finally:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
