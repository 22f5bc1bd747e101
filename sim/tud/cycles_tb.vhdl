-- Queens@TUD's solver unit (queens_slice behind its expand_blocking, from preusser/q27) run on
-- each pre-placement word of a file, writing the unit's clock cycles and solutions per word:
-- the per-subproblem test set of sim/src/tud.rs. This testbench is ours; the design under
-- test is not part of this repository (generate.sh fetches it).
--
-- cycles: the clock cycles from the one after the load (start) up to and including the one
-- in which the unit decides it is done. sol and done are registered, so the decision of a
-- cycle is read just after the edge that ends it.
library ieee;
use ieee.std_logic_1164.all;
use std.textio.all;
library poc;
use poc.utils.all; -- log2ceil

entity cycles_tb is
  generic (
    N       : positive;
    WORDS   : string := "words.txt";    -- one wire word per line, in hex (its parity bit ignored)
    RESULTS : string := "results.txt"   -- "cycles solutions" per word
  );
end entity;

architecture sim of cycles_tb is
  constant L : positive := 2;

  -- log2ceil(N) (PoC's utils): bits per coordinate of a pre-placement word.
  constant PRE_BITS : positive := 4*L*log2ceil(N) - 1;
  -- The wire word: the pre-placement and its parity bit, in whole bytes.
  constant WIRE_BITS : positive := 8*((PRE_BITS + 1 + 7)/8);

  signal clk    : std_logic := '0';
  signal rst    : std_logic := '1';
  signal start  : std_logic := '0';
  signal pre    : std_logic_vector(PRE_BITS-1 downto 0) := (others => '0');
  signal bh, bv : std_logic_vector(L to N-L-1);
  signal bu, bd : std_logic_vector(0 to 2*N-4*L-2);
  signal sol    : std_logic;
  signal done   : std_logic;
begin
  clk <= not clk after 5 ns;

  expand : entity work.expand_blocking
    generic map (N => N, L => L)
    port map (pre => pre, bh => bh, bv => bv, bu => bu, bd => bd);

  slice : entity work.queens_slice
    generic map (N => N, L => L)
    port map (
      clk => clk, rst => rst, start => start,
      BH_l => bh, BU_l => bu, BD_l => bd, BV_l => bv,
      sol => sol, done => done
    );

  drive : process
    file words_f   : text open read_mode is WORDS;
    file results_f : text open write_mode is RESULTS;
    variable li, lo    : line;
    variable wire      : std_logic_vector(WIRE_BITS-1 downto 0);
    variable cycles    : natural;
    variable solutions : natural;
  begin
    wait until rising_edge(clk);
    wait for 1 ns;
    rst <= '0';
    while not endfile(words_f) loop
      readline(words_f, li);
      hread(li, wire);
      pre   <= wire(PRE_BITS-1 downto 0);
      start <= '1';
      wait until rising_edge(clk);  -- the load
      wait for 1 ns;
      start     <= '0';
      cycles    := 0;
      solutions := 0;
      loop
        wait until rising_edge(clk);
        wait for 1 ns;
        cycles := cycles + 1;
        if sol = '1' then
          solutions := solutions + 1;
        end if;
        exit when done = '1';
      end loop;
      write(lo, cycles);
      write(lo, string'(" "));
      write(lo, solutions);
      writeline(results_f, lo);
    end loop;
    std.env.finish;
  end process;
end architecture;
