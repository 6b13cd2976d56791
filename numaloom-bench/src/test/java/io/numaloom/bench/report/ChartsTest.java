package io.numaloom.bench.report;

import org.junit.jupiter.api.Test;

import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ChartsTest {

    /** The title of default.json's short-cs-platform bench, which was cut to "hort critical sections" in its PNG. */
    private static final String LONG = "Short critical sections, platform threads (consumeCpu 100 tokens inside, none outside, no yields)";

    @Test
    void aLongTitleIsSetSmallerUntilItFitsThePlotWidth() {
        Font f = Charts.titleFont(LONG);
        assertTrue(f.getSize() < 16, "the long title must be set smaller than 16 pt, was " + f.getSize());
        Graphics2D g = new BufferedImage(1, 1, BufferedImage.TYPE_INT_RGB).createGraphics();
        double w = Charts.titleWidth(g, f, LONG);
        assertTrue(w <= Charts.TITLE_BUDGET, "title " + w + " px wide, budget " + Charts.TITLE_BUDGET);
        assertTrue(w < Charts.WIDTH, "title wider than the image");
    }

    @Test
    void aShortTitleKeepsTheDefaultSize() {
        assertEquals(16, Charts.titleFont("High contention").getSize());
    }
}
