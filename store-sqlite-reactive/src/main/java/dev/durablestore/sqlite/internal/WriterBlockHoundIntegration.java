package dev.durablestore.sqlite.internal;

import reactor.blockhound.BlockHound;
import reactor.blockhound.integration.BlockHoundIntegration;

/**
 * Tells BlockHound which blocking calls on the store's writer threads are the writer's own: its
 * waits for commands and for the lead, its statements and commits, and its shutdown. The writer
 * threads are {@link reactor.core.scheduler.NonBlocking} because subscribers' code runs on them when
 * the leader signals; that code stays checked. Loaded by BlockHound's {@code ServiceLoader} when
 * BlockHound is installed; BlockHound is an optional dependency, never needed at run time.
 */
public final class WriterBlockHoundIntegration implements BlockHoundIntegration {

    @Override
    public void applyTo(BlockHound.Builder builder) {
        builder.allowBlockingCallsInside(CommandQueue.class.getName(), "take");
        builder.allowBlockingCallsInside(TransactionRunner.class.getName(), "runBatch");
        builder.allowBlockingCallsInside(LeaderHandOff.class.getName(), "awaitLead");
        for (String method : new String[] {"failUnfinished", "stop"}) {
            builder.allowBlockingCallsInside(WriterShutdown.class.getName(), method);
        }
    }
}
