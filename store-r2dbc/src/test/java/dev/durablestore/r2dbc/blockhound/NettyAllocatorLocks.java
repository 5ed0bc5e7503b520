package dev.durablestore.r2dbc.blockhound;

import reactor.blockhound.BlockHound;
import reactor.blockhound.integration.BlockHoundIntegration;

/**
 * This module's BlockHound rules on top of the shared session's ({@code BlockHoundSession} of
 * store-test-support), loaded through this test tree's service entry: Netty 4.2's adaptive buffer
 * allocator guards its magazines with a StampedLock that may park for a moment under contention, a
 * memory-allocator lock, not I/O. Netty's own BlockHound integration does not list it yet, so it
 * failed a PostgreSQL connection at random.
 */
public final class NettyAllocatorLocks implements BlockHoundIntegration {

    /** Creates the integration; BlockHound's {@code ServiceLoader} does. */
    public NettyAllocatorLocks() {}

    @Override
    public void applyTo(BlockHound.Builder builder) {
        builder.allowBlockingCallsInside("io.netty.buffer.AdaptivePoolingAllocator$Magazine", "free")
                .allowBlockingCallsInside(
                        "io.netty.buffer.AdaptivePoolingAllocator$MagazineGroup", "tryExpandMagazines")
                .allowBlockingCallsInside("io.netty.buffer.AdaptivePoolingAllocator$MagazineGroup", "allocate");
    }
}
