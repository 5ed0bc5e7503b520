package dev.durablestore.core.projection;

import static dev.durablestore.core.projection.HistoryFixture.history;
import static dev.durablestore.core.projection.HistoryFixture.wf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.WorkflowStatus;
import dev.durablestore.api.WorkflowSummary;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.event.EventKind;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The parent projection across histories (R30). */
class ParentIndexTest {

    @Test
    void C72_child_workflow_started_names_the_parent() {
        // given P started and then started child R; R has its own history
        WorkflowId p = wf(1);
        WorkflowId r = wf(2);
        List<Event> parentHistory = history(p)
                .started("parent", HistoryFixture.run(1), null)
                .childStarted(r)
                .events();
        List<Event> childHistory =
                history(r).started("checkout", HistoryFixture.run(2), null).events();
        // when
        ParentIndex index = new ParentIndex().acceptAll(parentHistory).acceptAll(childHistory);
        // then: R's parent is P; P has none and does not match its own id (R36)
        assertThat(index.parentOf(r)).contains(p);
        assertThat(index.parentOf(p)).isEmpty();
        assertThat(index.size()).isEqualTo(1);
    }

    @Test
    void C74_summary_carries_the_parent_from_the_index() {
        // given
        WorkflowId p = wf(1);
        WorkflowId r = wf(2);
        List<Event> childHistory =
                history(r).started("checkout", HistoryFixture.run(2), null).events();
        ParentIndex index =
                new ParentIndex().acceptAll(history(p).started().childStarted(r).events());
        // when
        WorkflowSummary summary = HistoryProjection.summarize(
                        r, childHistory, index.parentOf(r).orElse(null))
                .orElseThrow();
        // then
        assertThat(summary.parent()).isEqualTo(p);
        assertThat(summary.status()).isEqualTo(WorkflowStatus.RUNNING);
        assertThat(summary.workflowType()).isEqualTo("checkout");
    }

    @Test
    void R30_last_event_in_parent_id_then_seq_order_wins_whatever_the_feed_order() {
        // given child C named by parent 3 (seq 2 and seq 4) and by parent 2 (seq 2)
        WorkflowId child = wf(9);
        List<Event> events = Stream.of(
                        history(wf(3))
                                .started()
                                .childStarted(child)
                                .signal()
                                .childStarted(child)
                                .events(),
                        history(wf(2)).started().childStarted(child).signal().events())
                .flatMap(List::stream)
                .filter(e -> e.kind() == EventKind.CHILD_WORKFLOW_STARTED)
                .toList();
        Event winner = events.get(1); // parent 3, seq 4
        List<Event> reversed = new ArrayList<>(events);
        Collections.reverse(reversed);
        // when
        ParentIndex inOrder = new ParentIndex().acceptAll(events);
        ParentIndex backwards = new ParentIndex().acceptAll(reversed);
        // then
        assertThat(winner.workflowId()).isEqualTo(wf(3));
        assertThat(winner.seq()).isEqualTo(4);
        assertThat(inOrder.parentOf(child)).contains(wf(3));
        assertThat(backwards.parentOf(child)).contains(wf(3));
    }

    @Test
    void R30_parent_ids_compare_by_canonical_text_not_by_uuid_compare_to() {
        // given two parents whose UUID.compareTo order (signed) differs from their text order (M3)
        WorkflowId low = WorkflowId.parse("7fffffff-ffff-ffff-ffff-ffffffffffff");
        WorkflowId high = WorkflowId.parse("80000000-0000-0000-0000-000000000000");
        assertThat(high.value().compareTo(low.value())).isNegative();
        WorkflowId child = wf(5);
        List<Event> events = new ArrayList<>();
        events.addAll(history(low).started().childStarted(child).events());
        events.addAll(history(high).started().childStarted(child).events());
        // when
        Map<WorkflowId, WorkflowId> parents = HistoryProjection.parents(events);
        // then: the parent with the greater text wins
        assertThat(parents).containsExactly(Map.entry(child, high));
    }

    @Test
    void R30_several_children_and_unrelated_events() {
        // given one parent starting two children among other events
        List<Event> events = history(wf(1))
                .started()
                .signal()
                .childStarted(wf(2))
                .completed()
                .childStarted(wf(3))
                .events();
        // when
        ParentIndex index = new ParentIndex();
        events.forEach(index);
        // then
        assertThat(index.asMap()).containsOnly(Map.entry(wf(2), wf(1)), Map.entry(wf(3), wf(1)));
        assertThat(index.parentOf(wf(4))).isEmpty();
        assertThatThrownBy(() -> index.asMap().clear()).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void R30_no_child_event_means_no_parent() {
        assertThat(HistoryProjection.parents(history().started().completed().events()))
                .isEmpty();
        assertThat(HistoryProjection.parents(List.of())).isEmpty();
    }

    @Test
    void null_arguments_are_rejected() {
        ParentIndex index = new ParentIndex();
        assertThatThrownBy(() -> index.accept(null)).isInstanceOf(InvalidArgumentException.class);
        assertThatThrownBy(() -> index.acceptAll(null)).isInstanceOf(InvalidArgumentException.class);
        assertThatThrownBy(() -> index.parentOf(null)).isInstanceOf(InvalidArgumentException.class);
        assertThatThrownBy(() -> HistoryProjection.parents(null)).isInstanceOf(InvalidArgumentException.class);
    }
}
