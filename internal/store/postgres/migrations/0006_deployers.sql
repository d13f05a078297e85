-- 0006_deployers: who deployed each deployment (the SQLite store's 0013),
-- so a running model reaches only what its deployer may reach (DESIGN §10
-- "Reach"): a dynamic reference is checked against the deployer's current
-- rights when it resolves.
--
-- deployed_by is the authenticated user who deployed; deployed_by_groups
-- the groups their identity provider named (a JSON array, OIDC only).
-- Both are '' for deployments made before this migration and on a server
-- without authentication: those models are not restricted.
ALTER TABLE deployments ADD COLUMN deployed_by TEXT NOT NULL DEFAULT '';
ALTER TABLE deployments ADD COLUMN deployed_by_groups TEXT NOT NULL DEFAULT '';
