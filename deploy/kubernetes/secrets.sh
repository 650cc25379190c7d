#!/usr/bin/env bash
# Prints the CURVE key Secrets deploy/kubernetes mounts, one per service (reactive-login-<service>-keys),
# as YAML on stdout: each service's key pairs and allowed_clients, created by `--init` in a temporary
# directory, with the public keys exchanged exactly as the local stack does (deploy/local/stack.sh keys).
# Needs the executables (BIN_DIR, default .build/release) and kubectl (no cluster: --dry-run=client).
#
#   BIN_DIR=.build/release deploy/kubernetes/secrets.sh > secrets.yaml
#   kubectl apply -n reactive-login -f secrets.yaml && shred -u secrets.yaml
#
# With auth among the services, also: auth's device-token secret (device.key, one for every replica)
# in its Secret, and the Secret reactive-login-database: `password` (random, for the in-cluster
# PostgreSQL of postgres.yaml) and `url`, what auth-service connects to (AUTH_DATABASE): that
# PostgreSQL, or DATABASE_URL when set (an external database; deploy/kubernetes-external-database).
#
# KEYS_DIR keeps the generated state directories there instead of deleting them (back them up: a new
# run makes new keys), and the database password in KEYS_DIR/database.password, which a later run
# reuses (PostgreSQL keeps the password it was first started with). STACK_SERVICES picks the services,
# as for the stack.
set -eu -o pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
services=${STACK_SERVICES:-auth validation heroes gateway}
if [ -n "${KEYS_DIR:-}" ]; then
    directory=$KEYS_DIR
else
    directory=$(mktemp -d "${TMPDIR:-/tmp}/reactive-login-keys.XXXXXX")
    trap 'rm -rf "$directory"' EXIT
fi
STACK_DIR=$directory STACK_SERVICES=$services "$here/../local/stack.sh" keys >&2
# 32 random bytes as unpadded base64url: auth-service's device-token secret format.
random_token() { head -c 32 /dev/urandom | base64 -w 0 | tr '+/' '-_' | tr -d '='; }
case " $services " in
*" auth "*)
    [ -s "$directory/auth/device.key" ] || (umask 077 && random_token >"$directory/auth/device.key")
    [ -s "$directory/database.password" ] || (umask 077 && random_token >"$directory/database.password")
    ;;
esac
first=1
for name in $services; do
    files=()
    for file in "$directory/$name"/*; do
        case $(basename "$file") in
        curve.key | curve.pub | client.key | client.pub | allowed_clients | auth.pub | validation.pub | heroes.pub | device.key)
            files+=("--from-file=$file")
            ;;
        esac
    done
    [ $first = 1 ] || echo "---"
    first=0
    kubectl create secret generic "reactive-login-$name-keys" "${files[@]}" --dry-run=client -o yaml
done
if [ -s "$directory/database.password" ]; then
    password=$(cat "$directory/database.password")
    echo "---"
    kubectl create secret generic reactive-login-database --from-literal="password=$password" \
        --from-literal="url=${DATABASE_URL:-postgresql://auth:$password@postgres:5432/accounts}" --dry-run=client -o yaml
fi
