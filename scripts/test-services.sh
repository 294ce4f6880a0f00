# Sourced by scripts/test.sh: the servers the storage, durability and browser tests need.
# Installs Debian's PostgreSQL, Chromium and Redis when missing (root and apt-get needed), starts
# PostgreSQL on 127.0.0.1 and exports the URL the tests use. Without root or apt-get it
# says so and those tests skip; where it can install, any failure stops the test run.

pg_user=research_studio
pg_url="postgresql://${pg_user}:${pg_user}@127.0.0.1:5432/postgres"

can_install() { [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; }

install_missing() {
  local missing=()
  command -v pg_ctlcluster >/dev/null || missing+=(postgresql)
  [ -x /usr/bin/chromium ] || missing+=(chromium)
  command -v redis-server >/dev/null || missing+=(redis-server)
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "Installing ${missing[*]} from Debian's packages..."
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

start_postgres() {
  local version
  version="$(ls /usr/lib/postgresql | sort -V | tail -1)"
  pg_lsclusters -h | grep -q "^$version main" || pg_createcluster "$version" main >/dev/null
  pg_lsclusters -h | grep -q "^$version main .* online" || pg_ctlcluster "$version" main start
  su postgres -c "psql -qtAc \"SELECT 1 FROM pg_roles WHERE rolname='${pg_user}'\"" | grep -q 1 \
    || su postgres -c "psql -qc \"CREATE ROLE ${pg_user} LOGIN SUPERUSER PASSWORD '${pg_user}'\""
}

if can_install; then
  install_missing
  start_postgres
  export RESEARCH_STUDIO_TEST_POSTGRES_URL="$pg_url" RESEARCH_STUDIO_REQUIRE_POSTGRES=1
  export RESEARCH_STUDIO_REQUIRE_BROWSER=1 RESEARCH_STUDIO_REQUIRE_REDIS=1
  echo "PostgreSQL on 127.0.0.1:5432, Chromium and redis-server ready for the tests."
else
  echo "Not root or no apt-get: PostgreSQL and browser tests will skip unless" \
       "RESEARCH_STUDIO_TEST_POSTGRES_URL is set and /usr/bin/chromium exists." >&2
fi
