<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en">
<context>
    <name>AboutDialog</name>
    <message>
        <source>unknown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>About LiveAgent Memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Version %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memory folder: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Licence: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Long-term memory for AI agents that a person can see, review and correct.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>LiveAgent Memory</source>
        <translation></translation>
    </message>
</context>
<context>
    <name>CompareDialog</name>
    <message>
        <source>Compare and edit the merge into %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The memories of this merge side by side, and the text that will replace %1. Edit it before you apply; the others move to the trash.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (kept)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (merged in, then deleted)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(This memory no longer exists.)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Merged text (what will be written)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checked for secrets and size when it is applied.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Back to the proposal</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Use this text</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keep the text for this merge; apply it later</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Apply this merge</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ContradictionEditDialog</name>
    <message>
        <source>Write the current text</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keep %1 (%2) with this text</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Description (one line)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>It is saved as reviewed; the other memory moves to the trash.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save as current</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Description</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ContradictionPanel</name>
    <message>
        <source>These two disagree — which one is current?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keep A</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keep B</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keep both</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Both stay as they are; later runs do not ask again while neither changes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Edit…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Write the current text: it is kept, reviewed, and the other moves to the trash</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This memory no longer exists.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What differs: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keep %1; %2 moves to the trash (it can be restored)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Answered: %1 kept, the other moved to the trash.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Answered: both kept (%1).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Answered: %1 now holds your text, the other moved to the trash.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Answered.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A memory changed or was deleted since this run: run the organizer again to compare them as they are now.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This run stored nothing to answer (a dry run).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The last answer failed (%1); try again.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>DeleteConfirmBar</name>
    <message>
        <source>Delete them</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Delete %n memories? Undo brings them back.</source>
        <translation>
            <numerusform>Delete %n memory? Undo brings it back.</numerusform>
            <numerusform>Delete %n memories? Undo brings them back.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>DiffView</name>
    <message>
        <source>Unified</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Side by side</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>How to show the change</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No changes.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ErrorBar</name>
    <message>
        <source>Dismiss</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Internal error: %1. This is a bug in the app, not something you did; the details are in the log. The page may be out of date: View → Refresh reloads it.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>EvidenceView</name>
    <message numerus="yes">
        <source>%n memories selected</source>
        <translation>
            <numerusform>%n memory selected</numerusform>
            <numerusform>%n memories selected</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>…and %n more</source>
        <translation>
            <numerusform>…and %n more</numerusform>
            <numerusform>…and %n more</numerusform>
        </translation>
    </message>
    <message>
        <source>Accept or delete them all with the buttons below.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Slug</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Scope</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Type</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Review</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unreviewed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>reviewed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Risk</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: it reads like an instruction to the agent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (lowered: the quote is too short)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Confidence</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Quote</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reasoning</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Aliases</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Supersedes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Conflicts with</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Written by</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Conversation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Created</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Updated</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Links</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the organizer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a person</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>extraction after a conversation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>an agent&apos;s memory tool</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>HistoryView</name>
    <message>
        <source>History of %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>When</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Who</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Note</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Text</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Changes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Compare with:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Restore this version</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Restoring a change brings back the memory as it was just before that change; restoring a deleted copy brings that copy back. The text it replaces stays in this history, so a restore can itself be undone.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a person</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>an agent&apos;s memory tool</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>extraction</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the organizer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a change on disk</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Current version</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Deleted (copy in the trash)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Before an organizer change</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Undone</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Created</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Changed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Accepted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Restored</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Deleted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Changed in a batch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Changed on disk</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Moved to quarantine</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the current version</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (same text as now)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing to restore: this change kept no earlier text</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The text of this version can no longer be read.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This version has no text to compare.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>From %1 to %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Description: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Type: %1 · Scope: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Needs review</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reviewed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Confidence: %1 · Quote: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This memory has no recorded history yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The memory as it is now.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The copy that was moved to the trash.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The copy taken before the organizer changed it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The memory just before this change: what restoring it brings back.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Description then: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reason: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Conversation: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Model: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This change kept no earlier text, so there is nothing to restore.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>JournalPage</name>
    <message>
        <source>Journal</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Search the journal (English or 中文)…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Search journal entries only (Ctrl+F)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Bold days have journal entries. Alt+Left / Alt+Right: previous / next one.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Search the journal</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Previous day with entries</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Next day with entries</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Archived — read-only</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Journals older than the retention period are archived and cannot change.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All journals</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Global journal</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n entries</source>
        <translation>
            <numerusform>%n entry</numerusform>
            <numerusform>%n entries</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 (archived, read-only)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Days with entries</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>archived</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No journal entries yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Showing the newest %n days; the calendar shows the rest.</source>
        <translation>
            <numerusform>Showing the newest %n day; the calendar shows the rest.</numerusform>
            <numerusform>Showing the newest %n days; the calendar shows the rest.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n days with entries</source>
        <translation>
            <numerusform>%n day with entries</numerusform>
            <numerusform>%n days with entries</numerusform>
        </translation>
    </message>
    <message>
        <source>Matching days</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n matching days</source>
        <translation>
            <numerusform>%n matching day</numerusform>
            <numerusform>%n matching days</numerusform>
        </translation>
    </message>
    <message>
        <source>No journal entry mentions “%1”.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing on this day.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No journal entries yet. The agent adds a page for each day it works.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sources</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Appended</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Trigger</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Conversation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No sources recorded.</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Agent episodes (%n)</source>
        <translation>
            <numerusform>Agent episodes (%n)</numerusform>
            <numerusform>Agent episodes (%n)</numerusform>
        </translation>
    </message>
    <message>
        <source>Started</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Outcome</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Task</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Goal</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>succeeded</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>partly done</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memories from this conversation:</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>LearningPage</name>
    <message>
        <source>Learning</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Last %n day(s)</source>
        <translation>
            <numerusform>Last %n day</numerusform>
            <numerusform>Last %n days</numerusform>
        </translation>
    </message>
    <message>
        <source>Contexts per day and hit rate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tokens saved against loading everything</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Contexts searched by keywords alone</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Task types</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What consolidation proposed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Proposed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Proposal</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Learned</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Episodes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>State</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing proposed yet. Learn from episodes on the Organizer page turns the agents&apos; repeated errors and steps into anti-patterns and skills for you to review.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Patterns and skills used by contexts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Kind</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Times</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Last used</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No pattern, skill or anti-pattern has been shown in a context yet. They are counted here each time an agent&apos;s context includes one.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No contexts yet: each time an agent asks for its memory, it counts here.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 contexts since %2 · %3 showed memory · %4 tokens saved</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No contexts in these days</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>contexts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>hit rate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>tokens saved</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>keyword only</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>pattern</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>skill</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>anti-pattern</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>LokiImportBar</name>
    <message>
        <source>Preview import</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>List what importing the chosen Loki Mode store would add, writing nothing</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Import</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Import the chosen Loki Mode store&apos;s episodes, patterns and skills; the memories it adds wait for your review</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Importing…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose a Loki Mode store above to import it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Import %1 into this store.</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Would import %n new or changed entries</source>
        <translation>
            <numerusform>Would import %n new or changed entry</numerusform>
            <numerusform>Would import %n new or changed entries</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Imported %n new or changed entries</source>
        <translation>
            <numerusform>Imported %n new or changed entry</numerusform>
            <numerusform>Imported %n new or changed entries</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n already here</source>
        <translation>
            <numerusform>%n already here</numerusform>
            <numerusform>%n already here</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n problems</source>
        <translation>
            <numerusform>%n problem</numerusform>
            <numerusform>%n problems</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>Opening the memory store…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>LiveAgent Memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>System language</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Quit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keyboard shortcuts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>About LiveAgent Memory</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>MemoriesPage</name>
    <message>
        <source>Memories</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All scopes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Global</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Projects</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All types</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>User</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Feedback</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Project</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reference</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Skill</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reviewed and unreviewed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unreviewed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reviewed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Any confidence</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>High confidence</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Medium confidence</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Low confidence</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unknown confidence</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Any risk flag</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Risk flagged</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not flagged</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All projects</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Global memories, or the ones bound to a project</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unreviewed memories were written by an agent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Flagged memories read like instructions to the agent; review them</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Search memories (English or 中文)…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Folder unknown (project %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No memory selected.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No memory matches the search and filters.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No memories yet. An agent adds them as it works, or press New to write one.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Accepted.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The selected memories are already reviewed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Accepted %n memories.</source>
        <translation>
            <numerusform>Accepted %n memory.</numerusform>
            <numerusform>Accepted %n memories.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Deleted %n memories. Undo (%1) brings them back.</source>
        <translation>
            <numerusform>Deleted %n memory. Undo (%1) brings it back.</numerusform>
            <numerusform>Deleted %n memories. Undo (%1) brings them back.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Brought back %n memories.</source>
        <translation>
            <numerusform>Brought back %n memory.</numerusform>
            <numerusform>Brought back %n memories.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Undid accepting %n memories: they wait for review again.</source>
        <translation>
            <numerusform>Undid accepting %n memory: it waits for review again.</numerusform>
            <numerusform>Undid accepting %n memories: they wait for review again.</numerusform>
        </translation>
    </message>
    <message>
        <source>Undid the edit: the text before it is back.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: one version kept; the other is in its history.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>MemoryActions</name>
    <message>
        <source>Search</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Search memories</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>New…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Write a new memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Edit…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Change this memory&apos;s text or evidence</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Accept</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Mark the selected memories reviewed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Move the selected memories to the trash</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Take back the last accept, edit or delete</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Review…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Go through the unreviewed memories one at a time, by keyboard</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Undo accept</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Undo edit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Undo delete</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Undo</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>History…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Earlier versions; restore one</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>MemoryDialogs</name>
    <message>
        <source>Saved with %1 confidence: high needs a verbatim quote of at least 5 characters, medium needs a quote.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Saved and marked for review: the text reads like an instruction to the agent.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Saved.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Restored. The text it replaced is the newest version in the history.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>MemoryEditor</name>
    <message>
        <source>New memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Edit %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Slug</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>S&amp;cope</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Project &amp;folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Type</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Description</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>C&amp;onfidence</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Source &amp;quote</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Reasoning</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Aliases</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>lowercase-words-with-dashes, e.g. tea-preference</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>One line the agent sees in its index</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What to remember (Markdown)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The person&apos;s own words, verbatim</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Why this is worth remembering</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Other names, separated by commas</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The project&apos;s folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Te&amp;xt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Evidence</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>High confidence needs a verbatim quote of at least 5 characters and medium needs a quote; otherwise the memory is saved with a lower confidence.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Global</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Project</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>User</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Feedback</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reference</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Skill</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not set</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>High</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Medium</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Low</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Give the memory a slug.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose the project folder this memory belongs to.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Write a one-line description.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The text cannot be empty.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Details: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Saving…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>MemoryListModel</name>
    <message>
        <source>Title</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Type</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Scope</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Review</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Confidence</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Risk</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Updated</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Folder unknown (project %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loading…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unreviewed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not reviewed by a person yet</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reads like an instruction to the agent: review it</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>MemoryListPane</name>
    <message numerus="yes">
        <source>%n memories</source>
        <translation>
            <numerusform>%n memory</numerusform>
            <numerusform>%n memories</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>MergeFoldersBar</name>
    <message>
        <source>Merge folders…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This project is kept in several folders (it was used on two machines before they synced): move every memory into the folder this row opens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Merge</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Move %n memories from folder %1 into %2?</source>
        <translation>
            <numerusform>Move %n memory from folder %1 into %2?</numerusform>
            <numerusform>Move %n memories from folder %1 into %2?</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n are here already with the same text and are kept once</source>
        <translation>
            <numerusform>%n is here already with the same text and is kept once</numerusform>
            <numerusform>%n are here already with the same text and are kept once</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n differ and are kept side by side, unreviewed</source>
        <translation>
            <numerusform>%n differs and is kept side by side, unreviewed</numerusform>
            <numerusform>%n differ and are kept side by side, unreviewed</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n episodes move too</source>
        <translation>
            <numerusform>%n episode moves too</numerusform>
            <numerusform>%n episodes move too</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n files cannot be read and stay</source>
        <translation>
            <numerusform>%n file cannot be read and stays</numerusform>
            <numerusform>%n files cannot be read and stay</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ModelPage</name>
    <message>
        <source>Model &amp; keys</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Default model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Extraction model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Organizer model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Used for chat, and for extraction and the organizer when they have no model of their own.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reads each conversation turn and proposes memories. Empty = use the default model.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tidies memories (merges, rewrites, deletions). Empty = use the default model.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Model:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Base URL:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>API key:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A litellm model name: provider/model, e.g. openai/gpt-4o-mini</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Only for OpenAI-compatible servers and local models (Ollama, vLLM).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>e.g. openai/gpt-4o-mini</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>empty = use the default model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>empty = the provider&apos;s own server</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Clear key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete this purpose&apos;s key from the keyring</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Test connection</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Send one tiny request to the model shown above</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Extraction options</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Extract memories after each conversation turn</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reviewer mode:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Strict: only what the user stated explicitly</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Standard: explicit statements and clear preferences</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Lenient: also likely-useful facts, reviewed later</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save settings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save the models and options (Ctrl+S)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Revert</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Discard unsaved changes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>API keys cannot be stored on this system.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A key is stored in the system keyring.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No key of its own: the default model&apos;s key is used.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No key stored; the environment variable %1 is used.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No key stored.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checking the keyring…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Details: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Paste a key to store it in the system keyring</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Testing…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 answered in %2 ms.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reply: “%1”</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unsaved changes.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Settings saved.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The key is stored in the system keyring.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The key was deleted from the keyring.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No key was stored for this model.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Organizer</name>
    <message>
        <source>%1 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 min</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>OrganizerPage</name>
    <message>
        <source>Organizer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run now</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel the run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save the organizer settings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Apply the checked decisions</source>
        <translation></translation>
    </message>
    <message>
        <source>Compare and edit…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The memories of this merge side by side; edit the merged text (Enter)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Decisions</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reject the current decision (in the review queue)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Select a run to see its details.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Select a decision to preview its change.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing to preview.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 run, %2: scope %3, mode %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(dry run)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Report from an older version (read-only):</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Error: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>In progress; phase: %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memories %1 → %2 · clusters %3 · applied %4 · held back %5 · tokens %6</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Held back: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Merge in %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rewrite</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete (merged into %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Write the merged text</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Contradictions (%n)</source>
        <translation>
            <numerusform>Contradictions (%n)</numerusform>
            <numerusform>Contradictions (%n)</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 no longer exists.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 moves to the trash (it can be restored).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: current text → after the change</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n decision(s) rejected.</source>
        <translation>
            <numerusform>%n decision rejected.</numerusform>
            <numerusform>%n decisions rejected.</numerusform>
        </translation>
    </message>
    <message>
        <source>The decisions not applied were rejected.</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n decision(s) applied</source>
        <translation>
            <numerusform>%n decision applied</numerusform>
            <numerusform>%n decisions applied</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n failed</source>
        <translation>
            <numerusform>%n failed</numerusform>
            <numerusform>%n failed</numerusform>
        </translation>
    </message>
    <message>
        <source>Memories now: %1.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>OrganizerSettingsBox</name>
    <message>
        <source>Schedule and model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show or hide the organizer&apos;s schedule and model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Frequency</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Weekday</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Scope</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Mode</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Base URL</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Conservative merges only near-identical memories; aggressive also merges across types and scopes. Manual runs always wait for your review.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Empty: use the default model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Optional, e.g. http://localhost:11434</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save the organizer settings (Ctrl+S)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>After each scheduled run, learn from the agents&apos; episodes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Proposes anti-patterns, skills and patterns for your review, as Learn from episodes does; nothing is applied until you accept it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Never (manual only)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Daily</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Weekly</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All memories</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Global memories</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Project memories</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Conservative</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Standard</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Aggressive</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Runs use %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Runs use the default model, %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No model configured: runs use the offline duplicate check.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>offline duplicate check</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>then learning from episodes</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ProblemsPanel</name>
    <message>
        <source>These files could not be read, so they are not listed. They stay on disk untouched; fix or remove them by hand. A sync conflict (two versions of one memory) is resolved here: choose it, then Resolve.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Resolve…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show both versions side by side and keep one, or a merged text</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Problems (%n)</source>
        <translation>
            <numerusform>Problems (%n)</numerusform>
            <numerusform>Problems (%n)</numerusform>
        </translation>
    </message>
    <message>
        <source>Files in the memory folder that could not be read</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ProjectsPage</name>
    <message>
        <source>Projects</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Exists</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>User</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Feedback</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Project</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reference</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Skill</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Journal</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unreviewed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Used / limit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show memories</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open the Memories page for this row (Enter)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No project has memories yet. When an agent remembers something about a folder it works in, that project is listed here.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Other memory stores</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>LiveAgent and Loki Mode memory stores in these folders and their subfolders (up to %n levels deep), only read, never changed.</source>
        <translation>
            <numerusform>LiveAgent and Loki Mode memory stores in these folders and their subfolders (up to %n level deep), only read, never changed.</numerusform>
            <numerusform>LiveAgent and Loki Mode memory stores in these folders and their subfolders (up to %n levels deep), only read, never changed.</numerusform>
        </translation>
    </message>
    <message>
        <source>Add a folder to search</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Look for memory stores in these folders</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop searching the chosen folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add folder…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add a folder to search (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop searching the chosen folder (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Search</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Look for memory stores in these folders (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Kind</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Projects /
namespaces</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Total</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Contents</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Problems</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Room left</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memory space</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n projects</source>
        <translation>
            <numerusform>%n project</numerusform>
            <numerusform>%n projects</numerusform>
        </translation>
    </message>
    <message>
        <source>Global</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unknown folder (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unknown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Yes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Missing</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The folder was moved or deleted; its memories remain.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Found on every machine by: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Kept in %1 folders; searches read the first: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Its .workdir.json cannot be read: the folder it names is unknown.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (on %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Project key: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memories shared by every project</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1
Not found in the last search: moved or deleted?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose a folder to search</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Searching…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add a folder to search, for example the one that holds your code projects.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Press Search to look for memory stores in these folders.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>None of these folders could be searched: see the problems below.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No other memory stores were found in these folders.</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Searching %n folders…</source>
        <translation>
            <numerusform>Searching %n folder…</numerusform>
            <numerusform>Searching %n folders…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n stores found</source>
        <translation>
            <numerusform>%n store found</numerusform>
            <numerusform>%n stores found</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n LiveAgent memories</source>
        <translation>
            <numerusform>%n LiveAgent memory</numerusform>
            <numerusform>%n LiveAgent memories</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n episodes</source>
        <translation>
            <numerusform>%n episode</numerusform>
            <numerusform>%n episodes</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n patterns</source>
        <translation>
            <numerusform>%n pattern</numerusform>
            <numerusform>%n patterns</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n skills</source>
        <translation>
            <numerusform>%n skill</numerusform>
            <numerusform>%n skills</numerusform>
        </translation>
    </message>
    <message>
        <source>This store is listed but not counted in the totals.</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n folders lie deeper than %1 levels and were not searched.</source>
        <translation>
            <numerusform>%n folder lies deeper than %1 levels and was not searched.</numerusform>
            <numerusform>%n folders lie deeper than %1 levels and were not searched.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n folders searched in %1 ms</source>
        <translation>
            <numerusform>%n folder searched in %1 ms</numerusform>
            <numerusform>%n folders searched in %1 ms</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n folders searched in %1 s</source>
        <translation>
            <numerusform>%n folder searched in %1 s</numerusform>
            <numerusform>%n folders searched in %1 s</numerusform>
        </translation>
    </message>
    <message>
        <source>LiveAgent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loki Mode</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>episodes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>patterns</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>skills</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>empty</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (this store)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loki Mode namespace</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Folder not found: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Permission denied: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not be read: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Removed during the search: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A link to a folder already searched: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not valid JSON: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Too large to read: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not in the expected format: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not a project folder (wrong name): %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>…and %n more folders that could not be searched</source>
        <translation>
            <numerusform>…and %n more folder that could not be searched</numerusform>
            <numerusform>…and %n more folders that could not be searched</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>QuotaBanner</name>
    <message>
        <source>Memory space: %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>New memories will be refused.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open organizer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Merge and prune memories to make room</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Global memories</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Project %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2 of %3 used, %4 left, %5 unreviewed.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ReviewMode</name>
    <message>
        <source>Review unreviewed memories</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Accept</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Mark this memory reviewed; then the next</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Edit…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Change its text; saving marks it reviewed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Move it to the trash, with a reason</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Undo</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Take back the last accept, edit or delete</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Previous</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The memory before this one</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Next</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The memory after this one</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Skip</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Leave it for later: it moves to the end</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Back to the list</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Leave the review mode</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Why delete it?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A reason, kept in its history (optional)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No memory waits for review.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loading the unreviewed memories…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>It reads like an instruction to the agent.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Written by %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Written by %1: what a model writes waits for a person.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Its confidence was lowered: the quote is too short.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Waiting for review: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Skipped: it comes again at the end.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Accepted “%1”.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Saved; it still needs review (it reads risky).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Saved “%1”.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Deleted “%1”.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 Undo (%2) takes it back.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Undone.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ReviewQueue</name>
    <message>
        <source>Review queue</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Decision</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Risk</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Confidence</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>State</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reason</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Apply selected</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Apply the checked decisions (Ctrl+Enter)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Apply all safe</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reject the current decision (Delete)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reject the rest</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reject every decision not applied yet; the queue closes</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Merge %n memories</source>
        <translation>
            <numerusform>Merge %n memory</numerusform>
            <numerusform>Merge %n memories</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 (edited)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Apply every low-risk decision that needs no acknowledgement</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This run&apos;s review is finished.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Every decision was handled.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Every remaining proposal needs your review: none is low-risk without an acknowledgement, so “Apply all safe” has nothing to apply.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reject</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Select a run to review its decisions.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This run was recorded by an older version; its report is read-only.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This run is in progress. Its decisions appear here when it finishes.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No decisions are waiting for review in this run.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RowActions</name>
    <message>
        <source>Copy slug</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open in editor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show in folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy the selected memories&apos; slugs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open the memory&apos;s file in the system&apos;s editor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open the folder that holds the memory&apos;s file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copied %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Copied %n slugs.</source>
        <translation>
            <numerusform>Copied %n slug.</numerusform>
            <numerusform>Copied %n slugs.</numerusform>
        </translation>
    </message>
    <message>
        <source>No program opened %1.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RunBar</name>
    <message>
        <source>Run now</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Organize with the chosen scope and mode (Ctrl+R)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Learn from episodes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Propose anti-patterns, skills and patterns from the agents&apos; episodes since the last time; nothing is applied until you accept it in the review queue</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop the run in progress (Esc)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The organizer is not available in this window.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No scheduled runs. Choose daily or weekly to organize automatically.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Next scheduled run: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Last run: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Another organizer run is active; this one was recorded as skipped.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancelling…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Starting…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Phase %1 of %2: %3</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RunHistoryModel</name>
    <message>
        <source>Started</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Status</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Trigger</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Phase</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memories</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Applied</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ratio</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Duration</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RunHistoryPanel</name>
    <message>
        <source>Run history</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Clear history</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete the records of finished runs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No organizer runs yet. Press “Run now” to look for duplicates and memories to tidy up; nothing changes until you review it.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RunWords</name>
    <message>
        <source>, </source>
        <comment>between the items of a list</comment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 %2</source>
        <comment>two sentences one after the other</comment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memories: %1, clusters: %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing to organize.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No new episodes since the last consolidation: nothing to learn.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 merges and deletions proposed for review (offline duplicate check).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 decisions passed the risk gate, %2 held back.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 new episodes; %2 lessons proposed for review.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Model&apos;s reason: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (the same text)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (the same meaning in another language: margin %2, cosine %3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (the same meaning: margin %2, cosine %3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (similarity %2: Jaccard %3, containment %4)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The types differ: %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Exact duplicates of %1 (the same text once case, width, spaces and punctuation are set aside): %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Near duplicates of %1 (nothing material differs): %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>anti-pattern</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>skill</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>pattern</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Update %1</source>
        <comment>a learned memory&apos;s kind</comment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>New %1</source>
        <comment>a learned memory&apos;s kind</comment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The %1 already exists; %2 more episodes confirm it: %3.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Learned from %2 episodes (%1): %3.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Merged into %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Merge proposed by the organizer (no reason given).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Deletion proposed by the organizer (no reason given).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: the merge into %2 is held back: deleting %3 needs your review.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: the merge into %2 is held back: the merged text would be longer than %3 bytes and needs a shorter rewrite by hand.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Episode %1 could not be read and was skipped (%2).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: what was learned would be %2 bytes, over the limit of %3; shorten the memory to let it grow.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Only the newest %1 episodes were read.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(no memory named)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: the model suggests rewriting %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: the model asks for a review of %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>environment</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>number</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>negation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>subject</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>exception</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 and %2 disagree (%3); which one is current?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: the merge into %2 is held back: %3 and %4 disagree (%5); which one is current?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: the merge into %2 is held back: %3 and %4 are different facts (%5).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ShortcutsDialog</name>
    <message>
        <source>Everywhere</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keyboard shortcuts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Action</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keys</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Strings</name>
    <message>
        <source>That memory no longer exists.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Something went wrong in the memory store.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A value is missing or not valid.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>That slug cannot be used: write lowercase words with dashes, e.g. tea-preference.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A memory with this slug already exists: choose another slug.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This slug is both a global and a project memory: say which one you mean.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The scope must be global or project.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>That memory type cannot be used here.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>That way of updating a memory is not known.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A day&apos;s journal can only be added to, not replaced.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A project memory needs its project folder.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>That project id is not valid.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A memory needs a one-line description.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The text is too long for one memory.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>That day&apos;s journal is archived and can no longer be changed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This version of the program does not know that command.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No window can be opened here: there is no display, or system libraries are missing.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The memory folder does not exist.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The search index was made by a newer version of LiveAgent Memory: update the program.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A setting is not valid, so nothing was saved.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The model call failed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The model answered with a tool call that is not valid JSON.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Embeddings could not be used; search uses keywords only.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The embedding provider failed or is not installed; search uses keywords only.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The local model&apos;s weights could not be read by the fast path; vectors are built by the slower engine.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The local embedding model could not be used; duplicates were looked for by their words only.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The embedding model&apos;s vectors do not fit its index; search uses keywords only.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>That memory&apos;s file cannot be read; it was left as it is.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The memory folder cannot be used.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The search index is busy or damaged.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The text looks like it holds a secret, so it was not saved.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Only a person can do this: a model may not mark memories reviewed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Settings never hold API keys or passwords. Store the key in the system keyring with the key field, and give the base URL without user:password@ or a key in it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This scope is full. Run the organizer or delete memories first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>That version is no longer available.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>That sync conflict is no longer there: it was resolved already.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This memory changed since, so undo would overwrite that; nothing was changed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No secure keyring is available on this system, so API keys cannot be stored or read here (they are never written to a file). Start a Secret Service (e.g. gnome-keyring or KWallet) and unlock it, or put the key in the provider&apos;s environment variable instead (for example OPENAI_API_KEY).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The web bridge cannot listen on that port: another program (or another bridge) uses it. Choose another port.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>An episode with this id is already recorded.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>That episode no longer exists.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A skill needs at least one step in its Steps section, and a When to use section or a description that says when to use it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>That episode&apos;s file cannot be read; it was left as it is.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>That folder does not exist.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>That folder holds no Loki Mode memory.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The project&apos;s id file (.liveagent/project-id) holds no usable id: fix or delete it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A project folder&apos;s .workdir.json cannot be read.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This project has no git remote and no id file, so no other folder can be known to hold it: run liveagent-memory projects pin first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This project is kept in one folder: there is nothing to merge.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>git is not installed: install git to sync the store.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This store does not sync with git yet: run liveagent-memory sync init REMOTE.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This store already syncs with a git remote.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The git remote could not be reached; nothing was changed. Try again later.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The remote already holds a store: start syncing it from an empty store folder.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The sync did not happen; nothing was changed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No model is configured: choose one on the Model &amp; keys page first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Authentication failed: the provider refused the API key. Store a valid key or set the provider&apos;s environment variable.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rate limited: the provider refuses more requests for now. Try again later.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Timed out: the model did not answer in time.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unavailable: the provider&apos;s server could not be reached or failed. Check the network connection and, if you gave one, the base URL.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The provider refused the request: check the model name.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Abandoned: the program running it stopped before it finished.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Never started: no desktop app picked up this queued run in time.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stopped: it was still running after 6 hours.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Skipped: another run was active.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancelled before it finished.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Failed: no cluster got a usable plan from the model.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>global</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>project</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>user</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>feedback</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>reference</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>skill</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>journal</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>other</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>low</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>medium</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>high</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>pending</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>running</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>succeeded</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>skipped</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>manual</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>scheduled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>scan</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cluster</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>plan</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>gate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>apply</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>done</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>consolidate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>all memories</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>all projects</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>current project</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>conservative</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>standard</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>aggressive</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>exploration</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>implementation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>debugging</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>review</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>refactoring</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>end of turn</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>note</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>warning</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>error</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>partly applied</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>applied</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>rejected</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>reviewed memory protected</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>low confidence</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>crosses types</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>crosses scopes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the model asked for review</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>merged text too long</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unsupported</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Something went wrong: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>plenty of room</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>filling up</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>getting full</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>nearly full</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>full</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>SyncBar</name>
    <message>
        <source>Sync every</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sync with the git remote on a timer while the app runs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> min</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sync now</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Commit this store&apos;s changes, take the remote&apos;s and push (never forced)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Git sync cannot run: git is not installed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Git sync is off. To sync this store between machines, run liveagent-memory sync init REMOTE once in a terminal.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Syncing with %1…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Syncs with %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>last sync failed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>synced: %n files pulled</source>
        <translation>
            <numerusform>synced: %n file pulled</numerusform>
            <numerusform>synced: %n files pulled</numerusform>
        </translation>
    </message>
    <message>
        <source>last sync %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>last sync %1 failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n conflicts to resolve on the Memories page</source>
        <translation>
            <numerusform>%n conflict to resolve on the Memories page</numerusform>
            <numerusform>%n conflicts to resolve on the Memories page</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>SyncConflictDialog</name>
    <message>
        <source>Two versions of one memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A sync tool kept two versions of %1. Keep one, or write the text that joins them; the other version stays in the memory&apos;s history.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Its first side (ours)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This version</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Its second side (theirs)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The other version</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keep this version</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keep the other version</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Edit a merged text…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save the merged text</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>VectorStatus</name>
    <message>
        <source>Search vectors could not be built; search uses keywords.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Building search vectors: %1 of %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memories are being embedded for search by meaning. Until they are, search uses keywords; everything else works as usual.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>WebPage</name>
    <message>
        <source>Web and agents</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Local web bridge</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run the web bridge</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Port:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Address:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Token:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>New token</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open web panel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Review and organize your memories in the browser (this computer only).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Make a new token; the old one stops working at once.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Agents and tools on this computer call the bridge over HTTP with the header Authorization: Bearer &lt;token&gt;. It listens on this computer only (127.0.0.1).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>MCP configuration</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Agents using MCP now</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Client</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>How</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Project</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Calls</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Last call</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Connected clients</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HTTP clients do not stay connected: these are the programs the bridge answered lately, by the name they send (User-Agent).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Program</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Requests</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Last request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Path</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>In claude_desktop_config.json (Settings → Developer → Edit Config): global memories, no project.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run in the project&apos;s folder: its project memories too.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>.cursor/mcp.json in the project (or ~/.cursor/mcp.json for every project).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>.vscode/mcp.json in the workspace.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>On at %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Starting…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Failed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Off</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No secure keyring on this system: a token is made when the bridge starts and lasts until the app closes.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No token yet: one is made, and kept in the system keyring, when the bridge first starts.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The token is kept in the system keyring; it stays the same.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No secure keyring on this system: this token lasts until the app closes and is not saved anywhere.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The MCP servers running on this computer, each started by an agent with the configuration above, and the client that uses it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No agent is using MCP now. An agent starts the server when it connects, with the configuration above.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(not connected yet)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(no project: global memories)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(no name)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
