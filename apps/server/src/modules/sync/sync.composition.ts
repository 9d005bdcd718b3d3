// Test-only, kept for imports in flight: the sync service is built by createServices
// (services.ts); tests reach it through test/test-services.ts. Import from there.
export { buildSyncService, type SyncSettings } from '../../test/test-services';
