@testable import ConferClient
import Foundation
import Synchronization
import Testing

/// `ObservedValue` and `EventBroadcast`, the client's observable state.
@Suite struct ObservationTests {
    @Test func anObserverGetsTheCurrentValueThenEachChangeInOrder() async {
        let value = ObservedValue(1)
        var iterator = value.values.makeAsyncIterator()
        #expect(await iterator.next() == 1)
        value.set(2)
        #expect(await iterator.next() == 2)
        value.set(2)   // not a change
        value.update { $0 += 1 }
        #expect(await iterator.next() == 3)
        value.finish()
        #expect(await iterator.next() == nil)
    }

    @Test func eventsReachEveryObserverFromWhenItSubscribed() async {
        let broadcast = EventBroadcast<Int>()
        broadcast.send(0)   // nobody yet
        var first = broadcast.events.makeAsyncIterator()
        broadcast.send(1)
        var second = broadcast.events.makeAsyncIterator()
        broadcast.send(2)
        broadcast.finish()
        var firstSaw: [Int] = []
        while let event = await first.next() { firstSaw.append(event) }
        var secondSaw: [Int] = []
        while let event = await second.next() { secondSaw.append(event) }
        #expect(firstSaw == [1, 2])
        #expect(secondSaw == [2])
        #expect(broadcast.droppedEvents == 0)
    }

    /// Observers cancelled while another thread sends: cancellation runs the stream's
    /// termination handler holding the task's status lock, and a send holding the
    /// broadcast's lock needs that status lock to yield. Before the handler stopped waiting
    /// for the lock, this deadlocked (seen once in a full `swift test`: both threads
    /// blocked for good; this test hung every time on that code); now every round ends.
    /// A deadlock blocks the threads a time limit would need, so a watchdog thread stops
    /// the process instead of letting the run hang.
    @Test func observersCancelledDuringSendsDoNotDeadlock() async {
        let broadcast = EventBroadcast<Int>(limit: 8)
        let value = ObservedValue(0)
        let sending = Sending()
        let watchdog = Thread {
            // Generous: beside the rest of the suite on two cores, the rounds wait for
            // threads that simulations keep busy for seconds at a time.
            for _ in 0 ..< 3000 where sending.flag.load(ordering: .relaxed) { Thread.sleep(forTimeInterval: 0.1) }
            guard sending.flag.load(ordering: .relaxed) else { return }
            FileHandle.standardError.write(Data("ObservationTests: observers deadlocked with a sender\n".utf8))
            abort()
        }
        watchdog.start()
        let sender = Thread {
            var count = 0
            while sending.flag.load(ordering: .relaxed) {
                count += 1
                broadcast.send(count)
                value.set(count)
                // Leave the other threads some room now and then.
                if count % 64 == 0 { Thread.sleep(forTimeInterval: 0.0001) }
            }
        }
        sender.start()
        for _ in 0 ..< 200 {
            let events = Task {
                for await _ in broadcast.events { if Task.isCancelled { break } }
            }
            let values = Task {
                for await _ in value.values { if Task.isCancelled { break } }
            }
            await Task.yield()
            events.cancel()
            values.cancel()
            await events.value
            await values.value
        }
        sending.flag.store(false, ordering: .relaxed)
        // Still working, with the cancelled observers gone.
        var iterator = broadcast.events.makeAsyncIterator()
        broadcast.send(-1)
        broadcast.finish()
        var last: Int?
        while let event = await iterator.next() { last = event }
        #expect(last == -1)
    }
}

/// A flag the sending thread reads (an `Atomic` must live in a class to be shared).
private final class Sending: Sendable {
    let flag = Atomic(true)
}
