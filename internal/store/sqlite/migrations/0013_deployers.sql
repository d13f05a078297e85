-- 0013_deployers: who deployed each deployment, so a running model
-- reaches only what its deployer may reach (DESIGN §10 "Reach"): a
-- dynamic reference (a callee or job type given as an expression) is
-- checked against the deployer's current rights when it resolves.
--
-- deployed_by is the authenticated user who deployed; deployed_by_groups
-- the groups their identity provider named (a JSON array, OIDC only: a
-- built-in user's groups are read from the store when the check runs).
-- Both are '' for deployments made before this migration and on a server
-- without authentication: those models are not restricted.
ALTER TABLE deployments ADD COLUMN deployed_by TEXT NOT NULL DEFAULT '';
ALTER TABLE deployments ADD COLUMN deployed_by_groups TEXT NOT NULL DEFAULT '';
