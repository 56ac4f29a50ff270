// Creates or drops a database for a CI run: node scripts/ci-database.mjs create|drop ADMIN_URL NAME
import pg from "pg"

const [action, url, name] = process.argv.slice(2)
if (!/^[a-z0-9_]+$/.test(name ?? "")) throw new Error("invalid database name")
const client = new pg.Client({ connectionString: url })
await client.connect()
try {
  await client.query(action === "create" ? `create database ${name}` : `drop database if exists ${name} with (force)`)
} finally {
  await client.end()
}
