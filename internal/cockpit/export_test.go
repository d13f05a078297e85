package cockpit

// MaxListTotal exposes where the cockpit expects ListInstances to stop
// counting, for the test that holds it equal to the store's.
const MaxListTotal = maxListTotal
