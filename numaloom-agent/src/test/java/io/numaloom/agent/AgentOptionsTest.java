package io.numaloom.agent;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The agent's options: what each means, and the one line a bad one gets. */
class AgentOptionsTest {

    @Test
    void defaultsAndEachOption() {
        AgentOptions none = AgentOptions.parse(null);
        assertTrue(none.covers("com.acme.Orders"));
        assertFalse(none.report());
        assertEquals(LockSwap.Target.PLAIN, none.target());

        AgentOptions o = AgentOptions.parse("include=com.acme.:ch.qos.logback.,exclude=com.acme.internal.,events,report=r.txt");
        assertTrue(o.covers("com.acme.Orders"));
        assertTrue(o.covers("ch.qos.logback.core.FileAppender"));
        assertFalse(o.covers("com.acme.internal.Cache"), "exclude wins");
        assertFalse(o.covers("org.other.Thing"), "not included");
        assertTrue(o.events());
        assertEquals(Path.of("r.txt"), o.reportFile());
        assertEquals(LockSwap.SiteArgument.NAME, o.target().argument());
        assertEquals(LockSwap.SiteArgument.NUMBER, AgentOptions.parse("counts,report").target().argument());
        assertEquals(null, AgentOptions.parse("report").reportFile(), "report alone: the standard error");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            verbose                 | unknown option 'verbose'; options: include=PREFIX:PREFIX, exclude=PREFIX:PREFIX, events, counts, report[=FILE]
            include=                | include needs prefixes of class names, e.g. include=com.acme.:org.example.
            include=com/acme        | include: 'com/acme' is not a prefix of a class name (letters, digits, _ $ .)
            events=yes              | events takes no value, got 'events=yes'
            report=                 | report= needs a file name (or write report alone for the standard error)
            `events,,counts`        | an empty option in 'events,,counts'; options:
            """)
    void aBadOptionSaysWhatIsWrong(String argument, String expected) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> AgentOptions.parse(argument));
        assertTrue(e.getMessage().startsWith(expected.strip()), e.getMessage());
        assertFalse(e.getMessage().contains("\n"), "one line");
    }
}
