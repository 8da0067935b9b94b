#!/bin/sh
# A one-node Ceph cluster for the tests: a monitor, a manager, one OSD keeping its objects in
# memory (memstore) and a RADOS Gateway speaking S3 on 127.0.0.1, all in DIR.
#
# usage: ceph_cluster.sh DIR
#
# Prints one JSON line, {"port": P, "stsPort": Q, "accessKey": K, "secret": S, "users":
# {"other": {...}, "reader": {...}}}, once the gateways answer (Q: the one with STS on),
# then keeps the cluster until its standard input closes (the test process ended) and stops
# every daemon. Debian 12's packages: radosgw ceph-mon ceph-mgr ceph-osd.
set -eu
D=$1
rm -rf "$D"; mkdir -p "$D/mon" "$D/osd" "$D/run" "$D/log" "$D/rgw" "$D/rgw-sts"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
uuid() { python3 -c 'import uuid; print(uuid.uuid4())'; }
FSID=$(uuid); MON=$(free_port); RGW=$(free_port); STS=$(free_port)
CONF=$D/ceph.conf
cat > "$CONF" <<CONF
[global]
fsid = $FSID
mon host = [v2:127.0.0.1:$MON]
mon initial members = a
public addr = 127.0.0.1
auth cluster required = cephx
auth service required = cephx
auth client required = cephx
osd pool default size = 1
osd pool default min size = 1
mon allow pool size one = true
osd crush chooseleaf type = 0
osd objectstore = memstore
memstore device bytes = 2147483648
mon data avail warn = 1
mon data avail crit = 0
run dir = $D/run
log file = $D/log/\$name.log
admin socket = $D/run/\$name.asok
keyring = $D/keyring
mon data = $D/mon
osd data = $D/osd
[client.rgw.a]
rgw frontends = beast endpoint=127.0.0.1:$RGW
rgw data = $D/rgw
# A second gateway over the same pools with STS on, for web identity (the key encrypts the
# session tokens it hands out). Apart, because with STS on a gateway answers a wrong secret or an
# unknown key with a bare AccessDenied instead of saying which.
[client.rgw.sts]
rgw frontends = beast endpoint=127.0.0.1:$STS
rgw data = $D/rgw-sts
rgw s3 auth use sts = true
rgw sts key = workbench-tests1
CONF
# Every daemon runs in the foreground as a child of this script, and goes with it.
pids=""
stop() { for pid in $pids; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$D"; }
trap stop EXIT INT TERM
# Keys first, the OSD's before its file system is made (the order that works).
ceph-authtool --create-keyring "$D/keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
ceph-authtool "$D/keyring" --gen-key -n client.admin --cap mon 'allow *' --cap osd 'allow *' --cap mgr 'allow *' --cap mds 'allow *' >/dev/null
ceph-authtool "$D/keyring" --gen-key -n osd.0 --cap mon 'allow profile osd' --cap mgr 'allow profile osd' --cap osd 'allow *' >/dev/null
ceph-authtool "$D/keyring" --gen-key -n mgr.a --cap mon 'allow profile mgr' --cap osd 'allow *' --cap mds 'allow *' >/dev/null
ceph-authtool "$D/keyring" --gen-key -n client.rgw.a --cap mon 'allow rw' --cap osd 'allow rwx' --cap mgr 'allow rw' >/dev/null
ceph-authtool "$D/keyring" --gen-key -n client.rgw.sts --cap mon 'allow rw' --cap osd 'allow rwx' --cap mgr 'allow rw' >/dev/null
monmaptool --create --addv a "[v2:127.0.0.1:$MON]" --fsid "$FSID" "$D/monmap" >/dev/null
ceph-mon -c "$CONF" --mkfs -i a --monmap "$D/monmap" --keyring "$D/keyring" 2>/dev/null
ceph-mon -c "$CONF" -i a -f 2>/dev/null & pids="$pids $!"
C="ceph -c $CONF --connect-timeout 60"
$C auth import -i "$D/keyring" >/dev/null 2>&1
OSD_UUID=$(uuid)
$C osd new "$OSD_UUID" 0 >/dev/null 2>&1
ceph-osd -c "$CONF" -i 0 --mkfs --osd-uuid "$OSD_UUID" --keyring "$D/keyring" >/dev/null 2>&1
ceph-osd -c "$CONF" -i 0 --keyring "$D/keyring" -f >/dev/null 2>&1 & pids="$pids $!"
ceph-mgr -c "$CONF" -i a --keyring "$D/keyring" -f >/dev/null 2>&1 & pids="$pids $!"
radosgw -c "$CONF" -n client.rgw.a --keyring "$D/keyring" -f >/dev/null 2>&1 & pids="$pids $!"
# S3 answers once the gateway has made its pools (about ten seconds).
i=0
until python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$RGW/', timeout=2)" 2>/dev/null; do
  i=$((i+1)); [ $i -lt 600 ] || { echo '{"error": "the RADOS Gateway did not answer in 5 minutes"}'; exit 1; }; sleep 0.5
done
# The STS gateway, once the first has made the pools.
radosgw -c "$CONF" -n client.rgw.sts --keyring "$D/keyring" -f >/dev/null 2>&1 & pids="$pids $!"
i=0
until python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$STS/', timeout=2)" 2>/dev/null; do
  i=$((i+1)); [ $i -lt 600 ] || { echo '{"error": "the STS gateway did not answer in 5 minutes"}'; exit 1; }; sleep 0.5
done
# The tests' user; a second user, who owns nothing of the first's; and a read-only subuser of
# the first (Swift-style subuser permissions, S3 keys).
A="radosgw-admin -c $CONF -n client.admin"
$A user create --uid=workbench --display-name=workbench >"$D/user.json" 2>/dev/null
# The tests' user may register an OpenID Connect provider and roles (web identity).
$A caps add --uid=workbench --caps="oidc-provider=*;roles=*" >/dev/null 2>&1
$A user create --uid=other --display-name=other >"$D/other.json" 2>/dev/null
$A subuser create --uid=workbench --subuser=workbench:reader --access=read --key-type=s3 --gen-access-key --gen-secret >"$D/reader.json" 2>/dev/null
python3 -c "
import json
def key(file, user):
    keys = json.load(open('$D/' + file))['keys']
    found = [k for k in keys if k['user'] == user][0]
    return {'accessKey': found['access_key'], 'secret': found['secret_key']}
main = key('user.json', 'workbench')
print(json.dumps({'port': $RGW, 'stsPort': $STS, **main, 'users': {'other': key('other.json', 'other'), 'reader': key('reader.json', 'workbench:reader')}}), flush=True)"
cat >/dev/null
